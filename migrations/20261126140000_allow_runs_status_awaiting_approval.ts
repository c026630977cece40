import type { Knex } from 'knex';

/** A run whose step waits on an approval gate is `awaiting_approval` (no worker holds it meanwhile). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE runs DROP CONSTRAINT runs_status_known');
  await knex.raw(
    `ALTER TABLE runs ADD CONSTRAINT runs_status_known CHECK (status IN ('queued', 'running', 'paused', 'awaiting_approval', 'succeeded', 'failed', 'cancelled'))`,
  );
}

/** Back to the statuses before approvals; a run still awaiting one is failed first, as nothing else could take it on. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE runs SET status = 'failed', finished_at = now() WHERE status = 'awaiting_approval'`);
  await knex.raw('ALTER TABLE runs DROP CONSTRAINT runs_status_known');
  await knex.raw(
    `ALTER TABLE runs ADD CONSTRAINT runs_status_known CHECK (status IN ('queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled'))`,
  );
}
