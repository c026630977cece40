import type { Knex } from 'knex';

/**
 * Git repositories of an organization: a remote URL (never with credentials in it), its default branch,
 * and how to authenticate (`auth_type` with a secret reference, never a value). Deleted outright (no
 * restore route): a repository with linked flows is refused.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('git_repositories', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.text('url').notNullable();
    t.string('default_branch', 255).notNullable().defaultTo('main');
    t.string('auth_type', 16).notNullable().defaultTo('none');
    t.string('auth_username', 255);
    t.text('secret_ref');
    t.text('known_hosts');
    t.timestamp('last_fetched_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.unique(['org_id', 'name'], { indexName: 'git_repositories_org_name_unique' });
    t.check("auth_type IN ('none', 'token', 'ssh_key')", [], 'git_repositories_auth_type_known');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('git_repositories');
}
