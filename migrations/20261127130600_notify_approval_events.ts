import type { Knex } from 'knex';

/**
 * An approval's notifications, written in the statement that changes it: `approval.requested` when it is
 * opened, `approval.decided` when it leaves `pending` for `approved`, `rejected` or `expired` (its run's
 * cancellation is the run's own event). The flow is the run's. A trigger for the same reason as the runs'
 * (migration 20261127130500): every path that decides, the expiry job included, writes the message.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE FUNCTION enqueue_approval_notifications() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE event text := CASE WHEN TG_OP = 'INSERT' AND NEW.status = 'pending' THEN 'approval.requested' WHEN TG_OP = 'UPDATE' AND OLD.status = 'pending' AND NEW.status IN ('approved', 'rejected', 'expired') THEN 'approval.decided' END; run record; BEGIN IF event IS NULL THEN RETURN NULL; END IF; SELECT r.id, r.name, r.flow_id, r.flow_name, r.flow_version, r.created_by INTO run FROM runs r WHERE r.id = NEW.run_id; PERFORM enqueue_notifications(NEW.org_id, run.flow_id, event, NEW.run_id, NEW.id, NEW.id, jsonb_build_object('event', event, 'occurred_at', now(), 'org_id', NEW.org_id, 'approval', jsonb_build_object('id', NEW.id, 'step_id', NEW.step_id, 'status', NEW.status, 'message', NEW.message, 'requested_at', NEW.requested_at, 'expires_at', NEW.expires_at, 'resolved_at', NEW.resolved_at), 'run', jsonb_build_object('id', run.id, 'name', run.name, 'flow_id', run.flow_id, 'flow_name', run.flow_name, 'flow_version', run.flow_version, 'created_by', run.created_by))); RETURN NULL; END $$`,
  );
  await knex.raw(
    'CREATE TRIGGER approvals_enqueue_notifications AFTER INSERT OR UPDATE OF status ON approvals FOR EACH ROW EXECUTE FUNCTION enqueue_approval_notifications()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS approvals_enqueue_notifications ON approvals');
  await knex.raw('DROP FUNCTION IF EXISTS enqueue_approval_notifications()');
}
