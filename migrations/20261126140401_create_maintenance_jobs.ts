import type { Knex } from 'knex';

/**
 * One row per maintenance job that ever ran: its last run (the later `GET /settings/maintenance/jobs`
 * reads it in one scan), when it last succeeded and how many runs and failures it had. Kept apart from
 * the history so the last success of a job failing for longer than the history is kept is not lost.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('maintenance_jobs', (t) => {
    t.string('name', 100).primary();
    t.uuid('last_run_id').notNullable();
    t.string('last_trigger', 16).notNullable();
    t.string('last_instance', 255).notNullable();
    t.timestamp('last_started_at', { useTz: true }).notNullable();
    t.timestamp('last_finished_at', { useTz: true }).notNullable();
    t.integer('last_duration_ms').notNullable();
    t.string('last_outcome', 16).notNullable();
    t.string('last_error_code', 100);
    t.text('last_error_message');
    t.jsonb('last_summary_json');
    t.timestamp('last_succeeded_at', { useTz: true });
    t.bigInteger('runs').notNullable().defaultTo(0);
    t.bigInteger('failures').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('maintenance_jobs');
}
