import type { Knex } from 'knex';

/** The dashboard's recent activity: an organization's last finished live runs, newest first, read from the top. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX runs_org_finished ON runs (org_id, finished_at DESC) WHERE finished_at IS NOT NULL AND deleted_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS runs_org_finished');
}
