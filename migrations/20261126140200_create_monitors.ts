import type { Knex } from 'knex';

/**
 * A run's monitors: time series a worker records during a run (a probe's latency, a device's state).
 * One per (run, the worker's key), so a retried create finds the first; `org_id` is the run's, copied for
 * the tenancy of reads. `sample_count`, `last_seq` and `last_sample` summarise the samples (written with
 * them); `summary` is what the worker says of the whole series. Gone with its run.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('monitors', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('run_id').notNullable().references('id').inTable('runs').onDelete('CASCADE');
    t.uuid('org_id').notNullable();
    t.string('monitor_key', 128).notNullable();
    t.string('name', 255).notNullable();
    t.string('step_id', 64);
    t.string('kind', 64).notNullable();
    t.string('target', 255);
    t.string('unit', 32);
    t.string('status', 16).notNullable().defaultTo('open');
    t.jsonb('summary').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.bigInteger('sample_count').notNullable().defaultTo(0);
    t.bigInteger('last_seq');
    t.jsonb('last_sample');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('closed_at', { useTz: true });
    t.unique(['run_id', 'monitor_key']);
    t.check(`status IN ('open', 'closed')`, [], 'monitors_status_known');
    t.check(`jsonb_typeof(summary) = 'object'`, [], 'monitors_summary_object');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('monitors');
}
