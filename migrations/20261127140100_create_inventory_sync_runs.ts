import type { Knex } from 'knex';

/**
 * The sync history of a provider. At most one `running` row per provider (the unique index is the gate
 * two syncs meet at, across daemons); `heartbeat_at` moves with every page so a sync whose daemon died
 * can be told from one still working. `cursor_json` is where the sync stood (phase and the next page):
 * a failed sync's cursor is where the next one resumes, with the same `pass_started_at`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('inventory_sync_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('provider_row_id').notNullable().references('id').inTable('inventory_providers').onDelete('CASCADE').index();
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('mode', 16).notNullable();
    t.string('status', 16).notNullable();
    t.uuid('resumed_from');
    t.timestamp('pass_started_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('heartbeat_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.jsonb('cursor_json');
    t.jsonb('counts_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.jsonb('error_json');
    t.string('triggered_by', 255);
  });
  await knex.raw(`CREATE UNIQUE INDEX inventory_sync_runs_one_running ON inventory_sync_runs (provider_row_id) WHERE status = 'running'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('inventory_sync_runs');
}
