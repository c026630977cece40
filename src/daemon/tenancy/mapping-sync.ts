import { MAPPINGS_CHANNEL } from '../db/channels.js';
import { ReloadTriggers, type SyncOptions } from '../db/reload-triggers.js';
import type { MappingIndex } from './mapping-index.js';

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
