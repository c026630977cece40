import type { Knex } from 'knex';

/**
 * The runs not finished, per organization and status: the dashboards' "now" counts (queued, running,
 * paused, awaiting approval) read only these few rows, however long the organization's history.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX runs_org_active ON runs (org_id, status) WHERE status IN ('queued', 'running', 'paused', 'awaiting_approval') AND deleted_at IS NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS runs_org_active');
}
