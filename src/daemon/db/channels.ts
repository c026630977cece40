import type { Knex } from 'knex';

/**
 * The NOTIFY channels by which one instance (or a database trigger) tells every instance to reload an
 * in-process copy of shared data. Each is LISTENed to by one sync (`ReloadTriggers`); a notification is
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

export type Channel = typeof MEMBERSHIPS_CHANNEL | typeof TRIGGER_CONFIG_CHANNEL | typeof OVERRIDES_CHANNEL | typeof MAPPINGS_CHANNEL;

/** Every channel, for the checks that no name is written twice. */
export const CHANNELS: readonly Channel[] = [MEMBERSHIPS_CHANNEL, TRIGGER_CONFIG_CHANNEL, OVERRIDES_CHANNEL, MAPPINGS_CHANNEL];

/** Notifies `channel` when `trx` commits (at once outside a transaction). */
export async function notify(trx: Knex | Knex.Transaction, channel: Channel, payload: string): Promise<void> {
  await trx.raw('SELECT pg_notify(?, ?)', [channel, payload]);
}
