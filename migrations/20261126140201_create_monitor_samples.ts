import type { Knex } from 'knex';

/**
 * A monitor's samples, one per (monitor, the worker's seq): a retried batch adds nothing. `stream_seq`
 * numbers the samples of all the run's monitors gap-free in commit order (handed out by
 * `runs.monitor_seq` under the run's row lock): the position of the run's monitor stream. Gone with
 * their monitor, so with their run.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('monitor_samples', (t) => {
    t.uuid('monitor_id').notNullable().references('id').inTable('monitors').onDelete('CASCADE');
    t.bigInteger('seq').notNullable();
    t.timestamp('ts', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.double('value');
    t.string('status', 32);
    t.jsonb('data').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.uuid('run_id').notNullable();
    t.bigInteger('stream_seq').notNullable();
    t.primary(['monitor_id', 'seq']);
    t.unique(['run_id', 'stream_seq']);
    t.index(['monitor_id', 'ts']);
    t.check('seq >= 1', [], 'monitor_samples_seq_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('monitor_samples');
}
