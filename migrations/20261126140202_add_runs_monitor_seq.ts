import type { Knex } from 'knex';

/** The last `stream_seq` handed to one of the run's monitor samples (gap-free, per run), as `event_seq` is for events. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.bigInteger('monitor_seq').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.dropColumn('monitor_seq');
  });
}
