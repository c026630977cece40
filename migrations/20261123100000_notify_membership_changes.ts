import type { Knex } from 'knex';

/**
 * Every instance caches callers' roles in organizations and empties that cache on `svc_memberships`.
 * Triggers rather than NOTIFY calls in the code: users are deactivated (or renamed to another subject)
 * by plain SQL, which no code path sees, and deleting a user or an organization removes memberships by
 * cascade, which fires the statement trigger of `org_memberships` as well. The notification is sent when
 * the writing transaction commits.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE FUNCTION notify_membership_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('svc_memberships', ''); RETURN NULL; END $$`,
  );
  await knex.raw(
    'CREATE TRIGGER org_memberships_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON org_memberships FOR EACH STATEMENT EXECUTE FUNCTION notify_membership_change()',
  );
  // Row-level with a condition: the login upsert updates `users` at every new session without changing either column.
  await knex.raw(
    'CREATE TRIGGER users_activity_notify AFTER UPDATE OF is_active, sub ON users FOR EACH ROW WHEN (OLD.is_active IS DISTINCT FROM NEW.is_active OR OLD.sub IS DISTINCT FROM NEW.sub) EXECUTE FUNCTION notify_membership_change()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS users_activity_notify ON users');
  await knex.raw('DROP TRIGGER IF EXISTS org_memberships_notify ON org_memberships');
  await knex.raw('DROP FUNCTION IF EXISTS notify_membership_change()');
}
