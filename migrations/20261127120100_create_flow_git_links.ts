import type { Knex } from 'knex';

/**
 * A flow's link to a file on a branch of a git repository (at most one per flow). `synced_definition_json`
 * is the definition the last pull or push left in step with git: a draft equal to it holds no edits a pull
 * would lose. A repository is not deleted while flows link to it (RESTRICT backs the service's check).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('flow_git_links', (t) => {
    t.uuid('flow_id').primary().references('id').inTable('flows').onDelete('CASCADE');
    t.uuid('repo_id').notNullable().references('id').inTable('git_repositories').onDelete('RESTRICT').index();
    t.string('branch', 255).notNullable();
    t.string('path', 1024).notNullable();
    t.string('mode', 16).notNullable().defaultTo('draft');
    t.string('last_synced_sha', 64);
    t.timestamp('last_synced_at', { useTz: true });
    t.jsonb('synced_definition_json');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.string('updated_by', 255);
    t.check("mode IN ('draft', 'version')", [], 'flow_git_links_mode_known');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('flow_git_links');
}
