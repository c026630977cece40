import type { Knex } from 'knex';

/** The scheduler's scan (enabled live schedules by next fire time): a partial index over only those rows. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX schedules_due ON schedules (next_fire_at, id) WHERE enabled AND deleted_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS schedules_due');
}
