import type { Knex } from 'knex';

/**
 * Single-use stream tickets, kept in the database so any instance can redeem one. The ticket itself is
 * never stored, only its digest; `principal_json` is the caller the ticket stands for.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('stream_tickets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('ticket_digest', 64).notNullable().unique();
    t.string('user_sub', 255).notNullable();
    t.jsonb('principal_json').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Eviction finds a user's oldest active tickets.
    t.index(['user_sub', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('stream_tickets');
}
