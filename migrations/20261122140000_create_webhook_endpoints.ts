import type { Knex } from 'knex';

/**
 * Inbound webhook endpoints. An endpoint is addressed only by its generated `path_token`; the secret and
 * the flow are references that become null when their row is removed, so the trigger answers 503 / 422
 * rather than the endpoint vanishing with them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.string('name', 128).notNullable();
    t.text('description');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.string('path_token', 64).notNullable().unique();
    t.uuid('secret_id').references('id').inTable('secrets').onDelete('SET NULL');
    t.string('auth_mode', 20).notNullable().defaultTo('hmac_sha256');
    t.integer('replay_window_seconds').notNullable().defaultTo(300);
    t.integer('rate_limit_per_minute').notNullable().defaultTo(60);
    t.uuid('flow_id').references('id').inTable('flows').onDelete('SET NULL').index();
    t.integer('flow_version');
    t.jsonb('allowed_source_ips_json');
    t.jsonb('payload_mapping_json').notNullable().defaultTo('{}');
    t.timestamp('last_triggered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.timestamp('deleted_at', { useTz: true });
    t.string('deleted_by', 255);
    t.check("auth_mode IN ('hmac_sha256', 'bearer')", [], 'webhook_endpoints_auth_mode');
    t.check('replay_window_seconds > 0 AND rate_limit_per_minute > 0', [], 'webhook_endpoints_positive_limits');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_endpoints');
}
