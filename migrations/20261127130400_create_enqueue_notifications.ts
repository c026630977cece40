import type { Knex } from 'knex';

/**
 * `enqueue_notifications(org, flow, event, run, approval, subject, payload)`: the outbox rows of one event,
 * one per live, enabled destination of the organization that takes it, in the caller's transaction: the
 * flow's own subscription to a destination when it has one (its `events`, muted when disabled), else the
 * destination's flow defaults. Wakes the senders (`svc_notifications`) when it wrote a row. Called by the
 * triggers on `runs` and `approvals`; answers how many rows it wrote. An SQL function (no PL/pgSQL):
 * one statement, whose data-modifying part always runs.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE FUNCTION enqueue_notifications(p_org uuid, p_flow uuid, p_event text, p_run uuid, p_approval uuid, p_subject uuid, p_payload jsonb) RETURNS integer LANGUAGE sql AS $$ WITH written AS (INSERT INTO notification_outbox (org_id, destination_id, event, run_id, approval_id, flow_id, payload_json, dedupe_key) SELECT p_org, d.id, p_event, p_run, p_approval, p_flow, p_payload, p_event || ':' || p_subject::text || ':' || d.id::text FROM notification_destinations d LEFT JOIN flow_notification_subscriptions s ON s.destination_id = d.id AND s.org_id = p_org AND s.flow_id = p_flow WHERE d.org_id = p_org AND d.deleted_at IS NULL AND d.enabled AND CASE WHEN s.id IS NULL THEN d.default_events @> jsonb_build_array(p_event) ELSE s.enabled AND s.events @> jsonb_build_array(p_event) END ON CONFLICT (dedupe_key) DO NOTHING RETURNING 1), told AS (SELECT pg_notify('svc_notifications', p_event) FROM (SELECT 1 FROM written LIMIT 1) AS one) SELECT (SELECT count(*) FROM written)::integer + 0 * (SELECT count(*) FROM told)::integer $$`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS enqueue_notifications(uuid, uuid, text, uuid, uuid, uuid, jsonb)');
}
