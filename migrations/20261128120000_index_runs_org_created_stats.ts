import type { Knex } from 'knex';

/**
 * The dashboard's window (`GET /dashboard/stats`, `/dashboard/org-health`): an organization's live runs by
 * creation time carrying their status and flow, so a window's counts by state, by bucket and by flow are
 * an index-only scan of that window's range, never a read of the run rows themselves.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX runs_org_created_stats ON runs (org_id, created_at) INCLUDE (status, flow_id) WHERE deleted_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS runs_org_created_stats');
}
