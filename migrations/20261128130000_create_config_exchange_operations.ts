import type { Knex } from 'knex';

/**
 * Configuration exchange operations (export, plan, apply): rows any instance claims (`FOR UPDATE SKIP
 * LOCKED`, oldest queued first, or a running one whose claimant's lease ran out). A plan's result is the
 * saved plan an apply names by `plan_id`; an apply writes its result in its own transaction, so a
 * committed apply is never run twice.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('config_exchange_operations', (t) => {
    t.uuid('correlation_id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('mode', 16).notNullable();
    t.string('status', 16).notNullable().defaultTo('queued');
    t.uuid('org_id').references('id').inTable('organizations').onDelete('SET NULL');
    t.string('org_slug', 255);
    t.jsonb('families_json');
    t.boolean('prune').notNullable().defaultTo(false);
    t.uuid('plan_id');
    t.text('bundle');
    t.jsonb('progress_json').notNullable().defaultTo('{"phase":"queued","done":0,"total":0}');
    t.jsonb('result_json');
    t.jsonb('error_json');
    t.boolean('cancel_requested').notNullable().defaultTo(false);
    t.string('requested_by_sub', 255);
    t.string('requested_by_username', 255);
    t.string('client_ip', 64);
    t.string('user_agent', 512);
    t.string('claimed_by', 255);
    t.timestamp('lease_expires_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['status', 'created_at'], 'config_exchange_operations_claim');
    t.check("mode IN ('export', 'plan', 'apply')", [], 'config_exchange_operations_mode');
    t.check("status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')", [], 'config_exchange_operations_status');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('config_exchange_operations');
}
