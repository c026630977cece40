import { MEMBERSHIPS_CHANNEL } from '../db/channels.js';
import { ReloadTriggers, type SyncOptions } from '../db/reload-triggers.js';
import type { OrgAccessRepo } from './org-access-repo.js';

/**
 * Empties the organization access caches (organizations, the shared one, roles: `OrgAccessRepo.invalidate`)
 * when another instance (or plain SQL) changed memberships or organizations, on every
 * (re)connection of the listener (notifications sent while it was away are lost), and periodically as
 * the backstop. Changes made by this instance empty it directly, without waiting for the round trip.
 */
export class MembershipSync {
  readonly #triggers: ReloadTriggers;

  constructor(access: Pick<OrgAccessRepo, 'invalidate'>, options: SyncOptions) {
    this.#triggers = new ReloadTriggers({ ...options, channel: MEMBERSHIPS_CHANNEL, reload: () => access.invalidate() });
  }

  start(): void {
    this.#triggers.start();
  }

  async stop(): Promise<void> {
    await this.#triggers.stop();
  }
}
