import type { Knex } from 'knex';

/**
 * A run's hold on a state (20261128200000) ends with the run too, as its locks do (20261128180000): the
 * same trigger function clears the holds of the run that became terminal, each with an audit entry
 * (`iac_state.hold_released`, no actor, `reason: run_ended`). Down puts back the function of 20261128180000.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE OR REPLACE FUNCTION release_iac_locks_of_ended_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.status IN ('succeeded', 'failed', 'cancelled') AND OLD.status NOT IN ('succeeded', 'failed', 'cancelled') THEN WITH released AS (UPDATE iac_states s SET lock_id = NULL, lock_json = NULL, locked_at = NULL, locked_by = NULL, lock_run_id = NULL, lock_step_id = NULL, updated_at = now() FROM iac_states held WHERE held.id = s.id AND s.lock_run_id = NEW.id RETURNING s.id, s.org_id, s.name, held.lock_id, held.lock_json, held.lock_step_id) INSERT INTO audit_logs (org_id, event_type, resource_type, resource_id, outcome, details_json) SELECT org_id, 'iac_state.lock_released', 'iac_state', id::text, 'success', jsonb_build_object('name', name, 'lock_id', lock_id, 'lock', lock_json, 'run_id', NEW.id, 'step_id', lock_step_id, 'reason', 'run_ended', 'run_status', NEW.status) FROM released; WITH unheld AS (UPDATE iac_states s SET hold_run_id = NULL, hold_step_id = NULL, held_at = NULL, updated_at = now() FROM iac_states held WHERE held.id = s.id AND s.hold_run_id = NEW.id RETURNING s.id, s.org_id, s.name, held.hold_step_id, held.held_at) INSERT INTO audit_logs (org_id, event_type, resource_type, resource_id, outcome, details_json) SELECT org_id, 'iac_state.hold_released', 'iac_state', id::text, 'success', jsonb_build_object('name', name, 'run_id', NEW.id, 'step_id', hold_step_id, 'held_at', held_at, 'reason', 'run_ended', 'run_status', NEW.status) FROM unheld; END IF; RETURN NULL; END $$`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE OR REPLACE FUNCTION release_iac_locks_of_ended_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.status IN ('succeeded', 'failed', 'cancelled') AND OLD.status NOT IN ('succeeded', 'failed', 'cancelled') THEN WITH released AS (UPDATE iac_states s SET lock_id = NULL, lock_json = NULL, locked_at = NULL, locked_by = NULL, lock_run_id = NULL, lock_step_id = NULL, updated_at = now() FROM iac_states held WHERE held.id = s.id AND s.lock_run_id = NEW.id RETURNING s.id, s.org_id, s.name, held.lock_id, held.lock_json, held.lock_step_id) INSERT INTO audit_logs (org_id, event_type, resource_type, resource_id, outcome, details_json) SELECT org_id, 'iac_state.lock_released', 'iac_state', id::text, 'success', jsonb_build_object('name', name, 'lock_id', lock_id, 'lock', lock_json, 'run_id', NEW.id, 'step_id', lock_step_id, 'reason', 'run_ended', 'run_status', NEW.status) FROM released; END IF; RETURN NULL; END $$`,
  );
}
