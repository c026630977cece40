import type { Knex } from 'knex';

/**
 * A monitor may outlive its step but not its run: when a run becomes terminal (by its worker, a cancel,
 * the reaper, a rejected approval, plain SQL), its open monitors close in the same transaction, and the
 * monitor streams are told (`<run_id>:ended` on `svc_monitor_samples`: no position, so every hub reads
 * the run and ends its streams). A trigger rather than a call in each of those paths, so none is missed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE FUNCTION close_monitors_of_ended_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.status IN ('succeeded', 'failed', 'cancelled') AND OLD.status IS DISTINCT FROM NEW.status THEN UPDATE monitors SET status = 'closed', closed_at = now(), updated_at = now() WHERE run_id = NEW.id AND status = 'open'; PERFORM pg_notify('svc_monitor_samples', NEW.id::text || ':ended'); END IF; RETURN NULL; END $$`,
  );
  await knex.raw(
    `CREATE TRIGGER runs_close_monitors AFTER UPDATE OF status ON runs FOR EACH ROW EXECUTE FUNCTION close_monitors_of_ended_run()`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS runs_close_monitors ON runs');
  await knex.raw('DROP FUNCTION IF EXISTS close_monitors_of_ended_run()');
}
