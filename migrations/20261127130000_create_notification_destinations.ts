import type { Knex } from 'knex';

/**
 * Notification destinations: where an organization's notifications go, one `kind` each (docs/notifications.md:
 * email, webhook, slack, mattermost, teams). `config_json` holds the kind's settings; a credential or a URL
 * holding a token is stored there only as a secret reference, resolved when a message is sent.
 * `default_events` are the flow defaults: the events every flow of the organization sends here unless the
 * flow has a subscription of its own to this destination. A live name is unique per organization.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notification_destinations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.string('name', 255).notNullable();
    t.text('description');
    t.string('kind', 20).notNullable();
    t.jsonb('config_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.boolean('enabled').notNullable().defaultTo(true);
    t.jsonb('default_events').notNullable().defaultTo(knex.raw(`'[]'::jsonb`));
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.timestamp('deleted_at', { useTz: true });
    t.string('deleted_by', 255);
    t.check(`kind IN ('email', 'webhook', 'slack', 'mattermost', 'teams')`, [], 'notification_destinations_kind_known');
    t.check(`jsonb_typeof(config_json) = 'object'`, [], 'notification_destinations_config_object');
    t.check(`jsonb_typeof(default_events) = 'array'`, [], 'notification_destinations_default_events_array');
  });
  await knex.raw(
    'CREATE UNIQUE INDEX notification_destinations_live_name ON notification_destinations (org_id, lower(name)) WHERE deleted_at IS NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notification_destinations');
}
