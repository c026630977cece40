import type { Knex } from 'knex';

/**
 * Every pull and push, its outcome included when refused or failed: the commit (sha, author, time), who
 * asked, and the problem code. Rows outlive their flow and repository (SET NULL), as audit entries do.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('git_sync_history', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.uuid('repo_id').references('id').inTable('git_repositories').onDelete('SET NULL').index();
    t.uuid('flow_id').references('id').inTable('flows').onDelete('SET NULL').index();
    t.string('direction', 8).notNullable();
    t.string('branch', 255).notNullable();
    t.string('path', 1024).notNullable();
    t.string('commit_sha', 64);
    t.text('commit_author');
    t.timestamp('committed_at', { useTz: true });
    t.integer('flow_version');
    t.boolean('forced').notNullable().defaultTo(false);
    t.string('outcome', 16).notNullable();
    t.string('code', 64);
    t.string('requested_by', 255);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("direction IN ('pull', 'push')", [], 'git_sync_history_direction_known');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('git_sync_history');
}
