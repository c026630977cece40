import type { Knex } from 'knex';

/**
 * The parent's attempt a child run was started in (`POST /internal/runs` for a `flow.run` step): a
 * retried request of the same attempt finds its child by (parent run, parent step, parent attempt),
 * while a requeued parent's new attempt starts a child of its own.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE runs ADD COLUMN parent_attempt integer');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE runs DROP COLUMN parent_attempt');
}
