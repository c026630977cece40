import type { Knex } from 'knex';

/**
 * `svc_run_tokens` (the token's id as payload) when a run token is revoked or deleted, by any path:
 * every instance's registry authorizer forgets the tokens it verified (docs/registry.md).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE FUNCTION notify_run_token_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'DELETE' OR OLD.revoked_at IS DISTINCT FROM NEW.revoked_at THEN PERFORM pg_notify('svc_run_tokens', OLD.id::text); END IF; RETURN NULL; END $$`,
  );
  await knex.raw(
    `CREATE TRIGGER run_tokens_change_notify AFTER UPDATE OF revoked_at OR DELETE ON run_tokens FOR EACH ROW EXECUTE FUNCTION notify_run_token_change()`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS run_tokens_change_notify ON run_tokens');
  await knex.raw('DROP FUNCTION IF EXISTS notify_run_token_change()');
}
