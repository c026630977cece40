import { ReloadTriggers, type SyncOptions } from '../db/reload-triggers.js';
import type { MembershipCache } from './membership-cache.js';

/**
 * Sent by database triggers (migration 20261123100000) on every write to `org_memberships` and every
 * change of a user's activity or deletion, committed with the write: plain SQL edits, the only way
 * users are deactivated, reach every instance too.
 */
export const MEMBERSHIPS_CHANNEL = 'svc_memberships';

/**
 * Empties the membership cache when another instance (or plain SQL) changed memberships, on every
 * (re)connection of the listener (notifications sent while it was away are lost), and periodically as
 * the backstop. Changes made by this instance empty it directly, without waiting for the round trip.
 */
export class MembershipSync {
  readonly #triggers: ReloadTriggers;

  constructor(cache: MembershipCache, options: SyncOptions) {
    this.#triggers = new ReloadTriggers({ ...options, channel: MEMBERSHIPS_CHANNEL, reload: () => cache.invalidate() });
  }

  start(): void {
    this.#triggers.start();
  }

  async stop(): Promise<void> {
    await this.#triggers.stop();
  }
}
