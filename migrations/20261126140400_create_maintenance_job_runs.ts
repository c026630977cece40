import type { Knex } from 'knex';

/**
 * The history of the maintenance jobs (docs/maintenance.md): one row per run of a job, written when it
 * ends, with when it started, how long it took, its outcome (`ok`, or `failed` with an error code and
 * message), what it did (`summary_json`), what set it going (`timer` or `tick`, the internal route) and
 * which daemon ran it. Kept for SERVICE_MAINTENANCE_HISTORY_DAYS by a job of its own.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('maintenance_job_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('job', 100).notNullable();
    t.string('trigger', 16).notNullable();
    t.string('instance', 255).notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('finished_at', { useTz: true }).notNullable();
    t.integer('duration_ms').notNullable();
    t.string('outcome', 16).notNullable();
    t.string('error_code', 100);
    t.text('error_message');
    t.jsonb('summary_json');
    t.check(`outcome IN ('ok', 'failed')`, [], 'maintenance_job_runs_outcome');
    t.check(`trigger IN ('timer', 'tick')`, [], 'maintenance_job_runs_trigger');
    t.check('duration_ms >= 0', [], 'maintenance_job_runs_duration');
    // A job's newest runs first (the later settings route); retention deletes by `started_at`.
    t.index(['job', 'started_at'], 'maintenance_job_runs_job_started');
    t.index(['started_at'], 'maintenance_job_runs_started');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('maintenance_job_runs');
}
