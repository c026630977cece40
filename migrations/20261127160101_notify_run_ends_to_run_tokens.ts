import type { Knex } from 'knex';

/**
 * `svc_run_tokens` (the run's id as payload) when a run that has run tokens stops being active or
 * changes attempt (requeued and claimed again): its tokens died with it, and every instance's registry
 * authorizer forgets the tokens it verified. Runs without tokens notify nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE FUNCTION notify_run_end_to_run_tokens() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF (OLD.attempt IS DISTINCT FROM NEW.attempt OR (OLD.status IN ('queued', 'running', 'paused', 'awaiting_approval') AND NEW.status NOT IN ('queued', 'running', 'paused', 'awaiting_approval'))) AND EXISTS (SELECT 1 FROM run_tokens WHERE run_id = NEW.id) THEN PERFORM pg_notify('svc_run_tokens', NEW.id::text); END IF; RETURN NULL; END $$`,
  );
  await knex.raw(
    `CREATE TRIGGER runs_end_run_tokens_notify AFTER UPDATE OF status, attempt ON runs FOR EACH ROW EXECUTE FUNCTION notify_run_end_to_run_tokens()`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS runs_end_run_tokens_notify ON runs');
  await knex.raw('DROP FUNCTION IF EXISTS notify_run_end_to_run_tokens()');
}
