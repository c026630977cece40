import type { Knex } from 'knex';

/**
 * One row per fire of a schedule: the gate of exactly once. The fire's statement inserts (schedule, due
 * time) with ON CONFLICT DO NOTHING, and only the insert that wrote the row writes the run, so any number
 * of daemons or external schedulers racing one due time make one run. A fire that could not run (its flow
 * gone, its targets gone) is a row too, `failed` with its reason.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('schedule_fires', (t) => {
    t.uuid('schedule_id').notNullable().references('id').inTable('schedules').onDelete('CASCADE');
    t.timestamp('due_at', { useTz: true }).notNullable();
    t.uuid('run_id').references('id').inTable('runs').onDelete('SET NULL');
    t.string('outcome', 8).notNullable();
    t.jsonb('error_json');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['schedule_id', 'due_at']);
    t.check("outcome IN ('fired', 'failed')", [], 'schedule_fires_outcome_known');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('schedule_fires');
}
