import type { Knex } from 'knex';

/**
 * `is_shared` marks the shared organization, whose resources every tenant may read; a partial unique
 * index allows at most one row to carry it (as `organizations_one_default` does for `is_default`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.boolean('is_shared').notNullable().defaultTo(false);
  });
  await knex.raw('CREATE UNIQUE INDEX organizations_one_shared ON organizations (is_shared) WHERE is_shared');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS organizations_one_shared');
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('is_shared');
  });
}
