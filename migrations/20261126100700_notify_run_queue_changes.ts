import type { Knex } from 'knex';

/**
 * Wakes the heartbeats that wait for work: `svc_runs_queued` when a run becomes claimable (inserted or
 * moved to `queued`), and `svc_run_control` (the holding worker's id as payload) when a held run is
 * cancelled, paused or resumed, so its worker hears of it on its waiting heartbeat (not when the worker
 * itself moved it, by its claim or its end: a notification would only cost it an empty answer). A trigger rather
 * than NOTIFY calls in the code, so every path (admission, control routes, the reaper, plain SQL) wakes them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE FUNCTION notify_run_queue_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.status = 'queued' AND NEW.deleted_at IS NULL AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'queued') THEN PERFORM pg_notify('svc_runs_queued', NEW.id::text); END IF; IF TG_OP = 'UPDATE' AND NEW.worker_id IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status AND (NEW.status IN ('cancelled', 'paused') OR OLD.status = 'paused') THEN PERFORM pg_notify('svc_run_control', NEW.worker_id); END IF; RETURN NULL; END $$`,
  );
  await knex.raw(
    `CREATE TRIGGER runs_queue_notify AFTER INSERT OR UPDATE OF status ON runs FOR EACH ROW EXECUTE FUNCTION notify_run_queue_change()`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS runs_queue_notify ON runs');
  await knex.raw('DROP FUNCTION IF EXISTS notify_run_queue_change()');
}
