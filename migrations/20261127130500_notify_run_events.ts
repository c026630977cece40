import type { Knex } from 'knex';

/**
 * A run's notifications, written in the statement that changes the run: `run.started` when it is inserted
 * (admitted), `run.succeeded` / `run.failed` / `run.cancelled` when its status becomes terminal. A trigger
 * rather than a call in each path (admission, the worker's PATCH, cancel, the reaper's `worker_lost`, an
 * approval's rejection, plain SQL), so none is missed and none commits without its run change.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE FUNCTION enqueue_run_notifications() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE event text := CASE WHEN TG_OP = 'INSERT' THEN 'run.started' WHEN NEW.status IN ('succeeded', 'failed', 'cancelled') AND OLD.status IS DISTINCT FROM NEW.status THEN 'run.' || NEW.status END; BEGIN IF event IS NULL THEN RETURN NULL; END IF; PERFORM enqueue_notifications(NEW.org_id, NEW.flow_id, event, NEW.id, NULL, NEW.id, jsonb_build_object('event', event, 'occurred_at', now(), 'org_id', NEW.org_id, 'run', jsonb_build_object('id', NEW.id, 'name', NEW.name, 'status', NEW.status, 'flow_id', NEW.flow_id, 'flow_name', NEW.flow_name, 'flow_version', NEW.flow_version, 'trigger_source', NEW.trigger_source, 'created_by', NEW.created_by, 'created_at', NEW.created_at, 'finished_at', NEW.finished_at, 'error', NEW.error_json))); RETURN NULL; END $$`,
  );
  await knex.raw(
    'CREATE TRIGGER runs_enqueue_notifications AFTER INSERT OR UPDATE OF status ON runs FOR EACH ROW EXECUTE FUNCTION enqueue_run_notifications()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS runs_enqueue_notifications ON runs');
  await knex.raw('DROP FUNCTION IF EXISTS enqueue_run_notifications()');
}
