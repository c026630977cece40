import type { Knex } from 'knex';

/**
 * The NOTIFY channels by which one instance (or a database trigger) tells every instance to reload an
 * in-process copy of shared data, or wake what waits for a change (heartbeats, live streams). Each is LISTENed to by one sync (`ReloadTriggers`); a notification is
 * delivered when the sending transaction commits. Migrations write their trigger functions with the
 * channel's name as SQL text (a migration that ran must not change); test/notify-channels.test.ts holds
 * that text to these names.
 */

/**
 * Sent by database triggers (migrations 20261123100000 and 20261125100000) on every write to
 * `org_memberships`, every change of a user's activity or deletion, and every change of an
 * organization's slug, activity, sharing or existence: plain SQL edits, the only way users are
 * deactivated, reach every instance too. Empties the organization access caches (`MembershipSync`).
 */
export const MEMBERSHIPS_CHANNEL = 'svc_memberships';

/**
 * Sent by database triggers (migration 20261124100000) on every change an accepted trigger or a run
 * admission could have cached: flows (not their drafts), flow versions, the shared organization,
 * webhook endpoints (not `last_triggered_at`), secrets and their values. Empties `TriggerConfig`.
 */
export const TRIGGER_CONFIG_CHANNEL = 'svc_trigger_config';

/** Sent by the override service with every saved override (the route or action as payload); reloads the `OverrideStore`. */
export const OVERRIDES_CHANNEL = 'svc_permission_overrides';

/**
 * Sent in the transaction of every IdP mapping write and every change to an organization's activity
 * (the organization's id as payload); reloads the `MappingIndex`.
 */
export const MAPPINGS_CHANNEL = 'svc_idp_mappings';

/**
 * Sent by a database trigger (migration 20261126100700) when a run becomes claimable (inserted or moved
 * to `queued`; the run's id as payload): wakes the worker heartbeats waiting for work.
 */
export const RUNS_QUEUED_CHANNEL = 'svc_runs_queued';

/**
 * Sent by the same trigger when a held run is cancelled, paused or resumed (the holding worker's id as
 * payload): wakes that worker's waiting heartbeat, which answers at once.
 */
export const RUN_CONTROL_CHANNEL = 'svc_run_control';

/**
 * Sent in the transaction that appends events to a run (`<run_id>:<last seq>` as payload: ids only, a
 * NOTIFY payload is capped near 8 kB); the live streams of every instance read what is new.
 */
export const RUN_EVENTS_CHANNEL = 'svc_run_events';

/**
 * Sent once a batch of monitor samples has committed (`<run_id>:<last stream seq>` as payload: ids only),
 * and by a database trigger (migration 20261126140203) when a run ends (`<run_id>:ended`); the live
 * monitor streams of every instance read what is new, or end.
 */
export const MONITOR_SAMPLES_CHANNEL = 'svc_monitor_samples';

/**
 * Sent by the database function that writes outbox rows (migration 20261127130400) when an event wrote
 * at least one (the event's name as payload): wakes every instance's notification sender.
 */
export const NOTIFICATIONS_CHANNEL = 'svc_notifications';

/**
 * Sent by database triggers (migrations 20261127160100 and 20261127160101) when a run token is revoked
 * or deleted, and when a run holding tokens ends or changes attempt: the registry authorizer forgets the
 * run tokens it verified (`CachedRunTokens`).
 */
export const RUN_TOKENS_CHANNEL = 'svc_run_tokens';

export type Channel =
  | typeof MEMBERSHIPS_CHANNEL
  | typeof TRIGGER_CONFIG_CHANNEL
  | typeof OVERRIDES_CHANNEL
  | typeof MAPPINGS_CHANNEL
  | typeof RUNS_QUEUED_CHANNEL
  | typeof RUN_CONTROL_CHANNEL
  | typeof RUN_EVENTS_CHANNEL
  | typeof MONITOR_SAMPLES_CHANNEL
  | typeof NOTIFICATIONS_CHANNEL
  | typeof RUN_TOKENS_CHANNEL;

/** Every channel, for the checks that no name is written twice. */
export const CHANNELS: readonly Channel[] = [
  MEMBERSHIPS_CHANNEL,
  TRIGGER_CONFIG_CHANNEL,
  OVERRIDES_CHANNEL,
  MAPPINGS_CHANNEL,
  RUNS_QUEUED_CHANNEL,
  RUN_CONTROL_CHANNEL,
  RUN_EVENTS_CHANNEL,
  MONITOR_SAMPLES_CHANNEL,
  NOTIFICATIONS_CHANNEL,
  RUN_TOKENS_CHANNEL,
];

/** Notifies `channel` when `trx` commits (at once outside a transaction). */
export async function notify(trx: Knex | Knex.Transaction, channel: Channel, payload: string): Promise<void> {
  await trx.raw('SELECT pg_notify(?, ?)', [channel, payload]);
}

/**
 * The SQL expression that notifies `channel` with `payloadSql` (an expression over a statement's rows),
 * for a statement that notifies once per row it writes, on its commit, without a round trip of its own.
 */
export function notifyExpression(channel: Channel, payloadSql: string): string {
  return `pg_notify('${channel}', ${payloadSql})`;
}
