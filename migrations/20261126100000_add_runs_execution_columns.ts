import type { Knex } from 'knex';

/**
 * What executing a run needs on its row, which is the queue (no second queue beside `status`):
 * - `worker_id`, `attempt`, `claimed_at`, `lease_expires_at`: the claim, a lease renewed by the
 *   worker's heartbeats; `attempt` counts claims and fences every callback (a worker that lost the
 *   run names an older attempt);
 * - `event_seq`: the last sequence number handed to one of the run's events (gap-free, per run);
 * - `outputs_json`, `run_vars_json`, `error_json`: what the run produced, its shared variables, and
 *   why it failed;
 * - `shared_worker_id`: the worker a run's shared-affinity steps stick to (first writer wins);
 * - `parent_run_id`, `parent_step_id`: the run and step (`flow.run`) that started this child run.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.string('worker_id', 255);
    t.integer('attempt').notNullable().defaultTo(0);
    t.timestamp('claimed_at', { useTz: true });
    t.timestamp('lease_expires_at', { useTz: true });
    t.bigInteger('event_seq').notNullable().defaultTo(0);
    t.jsonb('outputs_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.jsonb('run_vars_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.jsonb('error_json');
    t.string('shared_worker_id', 255);
    t.uuid('parent_run_id').references('id').inTable('runs').onDelete('SET NULL').index();
    t.string('parent_step_id', 64);
    t.check('attempt >= 0', [], 'runs_attempt_not_negative');
    t.check('event_seq >= 0', [], 'runs_event_seq_not_negative');
    t.check(`jsonb_typeof(outputs_json) = 'object'`, [], 'runs_outputs_object');
    t.check(`jsonb_typeof(run_vars_json) = 'object'`, [], 'runs_run_vars_object');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.dropChecks(['runs_attempt_not_negative', 'runs_event_seq_not_negative', 'runs_outputs_object', 'runs_run_vars_object']);
    t.dropColumns(
      'worker_id',
      'attempt',
      'claimed_at',
      'lease_expires_at',
      'event_seq',
      'outputs_json',
      'run_vars_json',
      'error_json',
      'shared_worker_id',
      'parent_run_id',
      'parent_step_id',
    );
  });
}
