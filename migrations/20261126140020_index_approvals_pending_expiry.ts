import type { Knex } from 'knex';

/** What the expiry job scans: pending approvals that can expire, soonest first. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX approvals_pending_expiry ON approvals (expires_at) WHERE status = 'pending' AND expires_at IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS approvals_pending_expiry');
}
