import type { Knex } from 'knex';

/**
 * One execution of one step of a run, in one attempt of the run (a requeued run starts its steps over).
 * Created by the worker (`POST /internal/runs/{run_id}/step-runs`) and moved by it (`PATCH
 * /internal/step-runs/{step_run_id}`); `outputs_json` is what later steps and the parent read.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('step_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('run_id').notNullable().references('id').inTable('runs').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.string('step_id', 64).notNullable();
    t.string('handler', 128).notNullable();
    t.string('status', 20).notNullable().defaultTo('running');
    t.string('summary', 1000);
    t.jsonb('outputs_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.jsonb('error_json');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.unique(['run_id', 'attempt', 'step_id']);
    t.check(`status IN ('pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled')`, [], 'step_runs_status_known');
    t.check(`jsonb_typeof(outputs_json) = 'object'`, [], 'step_runs_outputs_object');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('step_runs');
}
