import type { Knex } from 'knex';

/**
 * Folders made on purpose (`POST .../folders`), so an empty one is kept; a folder that holds files exists
 * through them too. `path` is `a/b`, never empty (the root is no row).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('file_folders', (t) => {
    t.uuid('repository_id').notNullable().references('id').inTable('file_repositories').onDelete('CASCADE');
    t.string('path', 1024).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.primary(['repository_id', 'path']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('file_folders');
}
