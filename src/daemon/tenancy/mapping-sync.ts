import { ReloadTriggers, type SyncOptions } from '../db/reload-triggers.js';
import type { MappingIndex } from './mapping-index.js';

/** Sent in the transaction of every mapping write and every change to an organization's activity. */
export const MAPPINGS_CHANNEL = 'svc_idp_mappings';

/**
 * Keeps the mapping index current across instances, with the same triggers as the permission
 * overrides (ReloadTriggers).
 */
export class MappingSync {
  readonly #triggers: ReloadTriggers;

  constructor(
    private readonly index: MappingIndex,
    options: SyncOptions,
  ) {
    this.#triggers = new ReloadTriggers({ ...options, channel: MAPPINGS_CHANNEL, reload: () => void this.index.refresh() });
  }

  start(): void {
    this.#triggers.start();
  }

  async stop(): Promise<void> {
    await this.#triggers.stop();
    await this.index.settled();
  }
}
