import type { Knex } from 'knex';

/**
 * A flow's subscription, in one organization, to a destination: the events of the flow's runs (and their
 * approvals) that are sent there. It replaces the destination's flow defaults for that flow (`enabled: false`
 * mutes them). A flow of the shared organization may be subscribed to by each organization that runs it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('flow_notification_subscriptions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('flow_id').notNullable().references('id').inTable('flows').onDelete('CASCADE').index();
    t.uuid('destination_id').notNullable().references('id').inTable('notification_destinations').onDelete('CASCADE').index();
    t.jsonb('events').notNullable().defaultTo(knex.raw(`'[]'::jsonb`));
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.unique(['org_id', 'flow_id', 'destination_id']);
    t.check(`jsonb_typeof(events) = 'array'`, [], 'flow_notification_subscriptions_events_array');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('flow_notification_subscriptions');
}
