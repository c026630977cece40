import type { Knex } from 'knex';

/**
 * Secrets: metadata of a folder of key/value pairs held by a backend. The values live in the backend
 * (for the built-in one, `secret_values`), never here. `path` locates the folder under the
 * organization's prefix (`orgs/<org_slug>/secrets/<path>`); two secrets of an organization cannot share
 * a folder, or deleting one would erase the other's values. A backend still in use cannot be deleted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('secrets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.text('description');
    t.uuid('backend_id').notNullable().references('id').inTable('secret_backends').onDelete('RESTRICT').index();
    t.string('path', 1024).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.unique(['org_id', 'name'], { indexName: 'secrets_org_name_unique' });
    t.unique(['org_id', 'backend_id', 'path'], { indexName: 'secrets_org_backend_path_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('secrets');
}
