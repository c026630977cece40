import type { Knex } from 'knex';

/**
 * Every write of a managed IaC state is a new version: Terraform's serial and lineage, the document's
 * size and SHA-256, and the document itself AES-256-GCM-encrypted under the secrets key (associated data:
 * organization, state name, version), with the key's id. Who wrote it: a run token's run and step, or a
 * user; how: the backend, an import or a rollback (naming the version it copied).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('iac_state_versions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('state_id').notNullable().references('id').inTable('iac_states').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.bigInteger('serial');
    t.string('lineage', 255);
    t.integer('size').notNullable();
    t.string('sha256', 64).notNullable();
    t.string('source', 16).notNullable();
    t.integer('rolled_back_from');
    t.string('created_by', 255);
    t.uuid('run_id');
    t.string('step_id', 255);
    t.string('key_id', 64).notNullable();
    t.binary('nonce').notNullable();
    t.binary('ciphertext').notNullable();
    t.binary('auth_tag').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['state_id', 'version']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('iac_state_versions');
}
