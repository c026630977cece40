import type { Knex } from 'knex';

/**
 * The claim's order (oldest queued first) and the reaper's scan (held runs by lease expiry), each a
 * partial index over the few rows it needs, so neither grows with the run history.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX runs_queued ON runs (created_at, id) WHERE status = 'queued' AND deleted_at IS NULL`);
  await knex.raw(`CREATE INDEX runs_leased ON runs (lease_expires_at) WHERE lease_expires_at IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS runs_leased');
  await knex.raw('DROP INDEX IF EXISTS runs_queued');
}
