import type { Knex } from 'knex';

/** The retention job's search: finished messages by when they finished, without reading the open ones. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX notification_outbox_finished ON notification_outbox (finished_at) WHERE status IN ('delivered', 'failed')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX notification_outbox_finished');
}
