import type { Knex } from 'knex';

/**
 * The built-in backend's store: one row per key of a secret folder, AES-256-GCM encrypted. The
 * associated data binds each ciphertext to (backend, location, key name), so a row copied over another
 * fails to decrypt. `key_id` is the fingerprint of the key that encrypted the row. `org_id` (resolved from
 * the location's slug) lets the values go with their organization when it is deleted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('secret_values', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('backend_id').notNullable().references('id').inTable('secret_backends').onDelete('CASCADE');
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE').index();
    t.string('location', 1200).notNullable();
    t.string('key_name', 128).notNullable();
    t.binary('nonce').notNullable();
    t.binary('ciphertext').notNullable();
    t.binary('auth_tag').notNullable();
    t.string('key_id', 64).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['backend_id', 'location', 'key_name'], { indexName: 'secret_values_backend_location_key_unique' });
    t.check('octet_length(nonce) = 12', [], 'secret_values_nonce_96_bits');
    t.check('octet_length(auth_tag) = 16', [], 'secret_values_tag_128_bits');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('secret_values');
}
