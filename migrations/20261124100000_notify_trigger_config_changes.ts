import type { Knex } from 'knex';

/**
 * Every instance caches what an accepted trigger and a run admission read on each request (the endpoint
 * by its token, the signing secret's values, the flow with its version, the shared organization) and
 * empties those caches on `svc_trigger_config`. Triggers rather than NOTIFY calls in the code, so plain
 * SQL and cascades reach every instance too; each fires only for changes those caches can see (a flow's
 * draft edits, an endpoint's `last_triggered_at` and inserts of rows nobody cached stay quiet).
 */
const ROW_TRIGGERS: readonly [table: string, name: string, when: string][] = [
  [
    'flows',
    'flows_trigger_config_notify',
    '(OLD.org_id, OLD.name, OLD.manual_runs_enabled, OLD.latest_version, OLD.deleted_at) IS DISTINCT FROM (NEW.org_id, NEW.name, NEW.manual_runs_enabled, NEW.latest_version, NEW.deleted_at)',
  ],
  [
    'organizations',
    'organizations_trigger_config_notify',
    '(OLD.is_shared, OLD.is_active) IS DISTINCT FROM (NEW.is_shared, NEW.is_active)',
  ],
  [
    'webhook_endpoints',
    'webhook_endpoints_trigger_config_notify',
    "to_jsonb(OLD) - 'last_triggered_at' IS DISTINCT FROM to_jsonb(NEW) - 'last_triggered_at'",
  ],
];

/** Tables whose every write (or every update and delete) empties the caches, one statement trigger each. */
const STATEMENT_TRIGGERS: readonly [table: string, name: string, events: string][] = [
  ['flows', 'flows_deleted_trigger_config_notify', 'DELETE OR TRUNCATE'],
  ['flow_versions', 'flow_versions_trigger_config_notify', 'UPDATE OR DELETE OR TRUNCATE'],
  ['organizations', 'organizations_deleted_trigger_config_notify', 'DELETE OR TRUNCATE'],
  ['webhook_endpoints', 'webhook_endpoints_deleted_trigger_config_notify', 'DELETE OR TRUNCATE'],
  ['secrets', 'secrets_trigger_config_notify', 'UPDATE OR DELETE OR TRUNCATE'],
  ['secret_values', 'secret_values_trigger_config_notify', 'INSERT OR UPDATE OR DELETE OR TRUNCATE'],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE FUNCTION notify_trigger_config_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('svc_trigger_config', ''); RETURN NULL; END $$`,
  );
  for (const [table, name, when] of ROW_TRIGGERS) {
    await knex.raw(
      `CREATE TRIGGER ${name} AFTER UPDATE ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION notify_trigger_config_change()`,
    );
  }
  for (const [table, name, events] of STATEMENT_TRIGGERS) {
    await knex.raw(`CREATE TRIGGER ${name} AFTER ${events} ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION notify_trigger_config_change()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, name] of [...STATEMENT_TRIGGERS, ...ROW_TRIGGERS].reverse())
    await knex.raw(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
  await knex.raw('DROP FUNCTION IF EXISTS notify_trigger_config_change()');
}
