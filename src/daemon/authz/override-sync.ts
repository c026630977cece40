import { OVERRIDES_CHANNEL } from '../db/channels.js';
import { ReloadTriggers, type SyncOptions } from '../db/reload-triggers.js';
import type { Logger } from '../logging/logger.js';
import type { OverrideStore } from './override-store.js';

/**
 * Keeps the store current across instances: a NOTIFY from the saving instance triggers a reload at
 * once, a periodic reload is the backstop, and every (re)connection of the listener reloads in full.
 */
export class OverrideSync {
  readonly #triggers: ReloadTriggers;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(
    private readonly store: OverrideStore,
    options: SyncOptions,
    private readonly log: Logger,
  ) {
    this.#triggers = new ReloadTriggers({ ...options, channel: OVERRIDES_CHANNEL, reload: () => this.refresh() });
  }

  start(): void {
    this.#triggers.start();
  }

  async stop(): Promise<void> {
    await this.#triggers.stop();
    await this.#running;
  }

  /** Reloads, coalescing signals that arrive during a reload into one more reload after it. */
  refresh(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.store
      .reload()
      .catch((error: unknown) => this.log.warn({ err: error }, 'permission overrides not refreshed; keeping the last known'))
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.refresh();
        }
      });
  }

  /** Resolves when no reload is running (tests and the saving path use it). */
  async settled(): Promise<void> {
    while (this.#running) await this.#running;
  }
}
