import type { Knex } from 'knex';

export const DEFAULT_ORG_SLUG = 'default';

/** The platform default organization, target of auto-join, exists from the first migration run on. */
export async function up(knex: Knex): Promise<void> {
  await knex('organizations').insert({
    slug: DEFAULT_ORG_SLUG,
    name: 'Default organization',
    description: 'Platform default organization; new users join it when auto-join is on.',
    is_default: true,
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex('organizations').where({ slug: DEFAULT_ORG_SLUG, is_default: true }).delete();
}
