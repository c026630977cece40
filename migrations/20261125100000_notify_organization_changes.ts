import type { Knex } from 'knex';

/**
 * Every instance caches organizations by reference (slug or id, misses included) and the shared
 * organization's id beside the roles, and empties them together on `svc_memberships` (the function of
 * migration 20261123100000): an organization deactivated, shared or deleted elsewhere, by the API or
 * plain SQL, reaches every instance within the notification's delivery. Inserts notify too, since a
 * miss for the new slug may be cached.
 */
export async function up(knex: Knex): Promise<void> {
  // Row-level with a condition: renaming or describing an organization changes nothing the request path reads.
  await knex.raw(
    'CREATE TRIGGER organizations_access_notify AFTER UPDATE ON organizations FOR EACH ROW WHEN ((OLD.slug, OLD.is_active, OLD.is_shared) IS DISTINCT FROM (NEW.slug, NEW.is_active, NEW.is_shared)) EXECUTE FUNCTION notify_membership_change()',
  );
  await knex.raw(
    'CREATE TRIGGER organizations_added_or_deleted_notify AFTER INSERT OR DELETE OR TRUNCATE ON organizations FOR EACH STATEMENT EXECUTE FUNCTION notify_membership_change()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS organizations_added_or_deleted_notify ON organizations');
  await knex.raw('DROP TRIGGER IF EXISTS organizations_access_notify ON organizations');
}
