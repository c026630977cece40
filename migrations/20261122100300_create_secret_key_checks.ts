import type { Knex } from 'knex';

/**
 * What lets start-up prove that the configured encryption key is the one the stored values were
 * encrypted with: the key's fingerprint and a canary encrypted under it. Written at the first start,
 * checked at every start after; one row per key holder (`scope`, `builtin` for the built-in backend).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('secret_key_checks', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.string('scope', 64).notNullable().unique();
    t.string('key_id', 64).notNullable();
    t.binary('canary_nonce').notNullable();
    t.binary('canary_ciphertext').notNullable();
    t.binary('canary_tag').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('secret_key_checks');
}
