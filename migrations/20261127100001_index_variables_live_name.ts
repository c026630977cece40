import type { Knex } from 'knex';

/** One live variable of a name per organization; a soft-deleted one keeps its name without holding it. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE UNIQUE INDEX variables_org_live_name ON variables (org_id, name) WHERE deleted_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX variables_org_live_name');
}
