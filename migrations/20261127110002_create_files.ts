import type { Knex } from 'knex';

/**
 * A file of a repository: its folder (`''` at the root, else `a/b`) and name, unique together; its size,
 * SHA-256 and sniffed content type, and `storage_key`, the backend's name for its bytes, which a move or
 * rename leaves alone (no bytes are copied). `revision` counts content replacements: a signed URL names it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('files', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('repository_id').notNullable().references('id').inTable('file_repositories').onDelete('RESTRICT');
    t.string('folder', 1024).notNullable().defaultTo('');
    t.string('name', 255).notNullable();
    t.string('content_type', 255).notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.string('sha256', 64).notNullable();
    t.string('storage_key', 255).notNullable();
    t.integer('revision').notNullable().defaultTo(1);
    t.string('source_url', 2048);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.unique(['repository_id', 'folder', 'name']);
    t.index(['org_id', 'folder']);
    t.check('size_bytes >= 0', [], 'files_size_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('files');
}
