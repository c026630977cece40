import type { Knex } from 'knex';

/** One default repository per organization, held by the database rather than by whoever sets it. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE UNIQUE INDEX file_repositories_one_default ON file_repositories (org_id) WHERE is_default');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS file_repositories_one_default');
}
