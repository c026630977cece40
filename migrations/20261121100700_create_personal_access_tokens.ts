import type { Knex } from 'knex';

/**
 * Personal access tokens. Only a SHA-256 digest of the secret is kept; `token_prefix` is the
 * non-secret start of the plaintext, shown in lists so a user can tell tokens apart.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('personal_access_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE').index();
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.string('name', 255).notNullable();
    t.string('token_prefix', 32).notNullable();
    t.string('token_digest', 64).notNullable().unique();
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.string('revoked_by_sub', 255);
    t.string('created_by_sub', 255);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('personal_access_tokens');
}
