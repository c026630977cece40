import type { Knex } from 'knex';

/**
 * The personal access token a ticket was obtained with, when it was: redeeming the ticket checks that
 * token is still live, so revoking it cuts its tickets too. Deleting the token deletes its tickets.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stream_tickets', (t) => {
    t.uuid('pat_id').references('id').inTable('personal_access_tokens').onDelete('CASCADE').index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stream_tickets', (t) => {
    t.dropColumn('pat_id');
  });
}
