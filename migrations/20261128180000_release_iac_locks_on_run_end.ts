import type { Knex } from 'knex';

/**
 * An IaC state lock taken by a run (`lock_run_id`, through a run token) does not outlive the run: when the
 * run becomes terminal (its worker, a cancel, the reaper, a rejected approval, plain SQL), the locks it
 * still holds are released in the same transaction, each with an audit entry
 * (`iac_state.lock_released`, no actor, the lock, the run and its step), as Terraform Cloud unlocks a
 * workspace when the run holding it ends. Its run tokens died with it, so nobody else could have released
 * them short of an administrator's force-unlock. A trigger rather than a call in each of those paths, as
 * the monitors close (20261126140203). The update joins the table to itself to read the lock it removes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE FUNCTION release_iac_locks_of_ended_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.status IN ('succeeded', 'failed', 'cancelled') AND OLD.status NOT IN ('succeeded', 'failed', 'cancelled') THEN WITH released AS (UPDATE iac_states s SET lock_id = NULL, lock_json = NULL, locked_at = NULL, locked_by = NULL, lock_run_id = NULL, lock_step_id = NULL, updated_at = now() FROM iac_states held WHERE held.id = s.id AND s.lock_run_id = NEW.id RETURNING s.id, s.org_id, s.name, held.lock_id, held.lock_json, held.lock_step_id) INSERT INTO audit_logs (org_id, event_type, resource_type, resource_id, outcome, details_json) SELECT org_id, 'iac_state.lock_released', 'iac_state', id::text, 'success', jsonb_build_object('name', name, 'lock_id', lock_id, 'lock', lock_json, 'run_id', NEW.id, 'step_id', lock_step_id, 'reason', 'run_ended', 'run_status', NEW.status) FROM released; END IF; RETURN NULL; END $$`,
  );
  await knex.raw(
    `CREATE TRIGGER runs_release_iac_locks AFTER UPDATE OF status ON runs FOR EACH ROW EXECUTE FUNCTION release_iac_locks_of_ended_run()`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS runs_release_iac_locks ON runs');
  await knex.raw('DROP FUNCTION IF EXISTS release_iac_locks_of_ended_run()');
}
