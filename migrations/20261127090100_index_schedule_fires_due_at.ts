import type { Knex } from 'knex';

/**
 * The fire retention's scan (fires whose due time is past the retention, oldest first, a batch at a
 * time): without it each batch would read the whole table, which grows by one row per fire.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX schedule_fires_due_at ON schedule_fires (due_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS schedule_fires_due_at');
}
