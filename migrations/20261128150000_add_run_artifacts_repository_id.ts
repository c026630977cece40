import type { Knex } from 'knex';

/**
 * The file repository an artifact's bytes are kept in (`storage = 'repository'`), null for the other
 * stores. No cascade: a repository holding artifacts is refused deletion (409 `file_repository_not_empty`);
 * NO ACTION rather than RESTRICT so that an organization's delete, which cascades to its runs and its
 * repositories in one statement, is checked only once both are gone.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_artifacts', (t) => {
    t.uuid('repository_id').references('id').inTable('file_repositories');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('run_artifacts', (t) => {
    t.dropColumn('repository_id');
  });
}
