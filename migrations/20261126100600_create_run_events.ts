import type { Knex } from 'knex';

/**
 * What happened in a run, in order: `seq` is per run, gap-free, handed out by `runs.event_seq`. Events a
 * worker posts carry its own `worker_seq`, unique per (run, attempt), so a retried batch adds nothing;
 * the daemon's own events (state changes) have none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('run_events', (t) => {
    t.uuid('run_id').notNullable().references('id').inTable('runs').onDelete('CASCADE');
    t.bigInteger('seq').notNullable();
    t.timestamp('ts', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('type', 64).notNullable();
    t.string('step_id', 64);
    t.jsonb('data').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.integer('attempt').notNullable().defaultTo(0);
    t.string('worker_id', 255);
    t.bigInteger('worker_seq');
    t.primary(['run_id', 'seq']);
    t.unique(['run_id', 'attempt', 'worker_seq']);
    t.check('seq >= 1', [], 'run_events_seq_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('run_events');
}
