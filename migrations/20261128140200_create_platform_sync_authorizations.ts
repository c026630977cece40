import type { Knex } from 'knex';

/**
 * A destructive authorization: a grant, with a reason and an expiry, under which a profile's applies may
 * delete (prune) or replace secret-bearing items; bound to one plan when `plan_id` is set. Revoked rows stay.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('platform_sync_authorizations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('profile_id').notNullable().references('id').inTable('platform_sync_profiles').onDelete('CASCADE');
    t.uuid('plan_id').references('id').inTable('platform_sync_plans').onDelete('CASCADE');
    t.text('reason').notNullable();
    t.timestamp('granted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('granted_by', 255);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.string('revoked_by', 255);
    t.text('revoke_reason');
    t.integer('use_count').notNullable().defaultTo(0);
    t.timestamp('last_used_at', { useTz: true });
    t.index(['profile_id', 'granted_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('platform_sync_authorizations');
}
