import type { Knex } from 'knex';

/**
 * Slugs of deleted organizations, never given to another: the registry's `orgs/<slug>/…` images (and
 * anything else named by the slug outside the database) outlive the organization, and a new one of that
 * slug would read them. Filled from the audit log's `org.deleted` entries for organizations deleted before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE TABLE retired_org_slugs (slug text PRIMARY KEY, org_id uuid NOT NULL, retired_at timestamptz NOT NULL DEFAULT now())',
  );
  await knex.raw(
    `INSERT INTO retired_org_slugs (slug, org_id, retired_at)
     SELECT DISTINCT ON (details_json->>'slug') details_json->>'slug', (details_json->>'org_id')::uuid, ts
     FROM audit_logs
     WHERE event_type = 'org.deleted' AND details_json->>'slug' IS NOT NULL AND details_json->>'org_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
     ORDER BY details_json->>'slug', ts DESC`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS retired_org_slugs');
}
