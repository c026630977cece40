import type { Knex } from 'knex';

/**
 * The bytes of flow attachments, one row per content per file repository (`sha256` unique within a
 * repository): a draft's attachment and every committed version pinning the same content point to one
 * blob, so a commit copies no byte. `storage_key` is the key in that repository's store
 * (`attachments/<uuid>`). A blob nothing points to any more is removed with its bytes (docs/flow-attachments.md).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('flow_attachment_blobs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('repository_id').notNullable().references('id').inTable('file_repositories').onDelete('RESTRICT');
    t.string('storage_key', 255).notNullable();
    t.string('sha256', 64).notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['repository_id', 'sha256']);
    t.check('size_bytes >= 0', [], 'flow_attachment_blobs_size_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('flow_attachment_blobs');
}
