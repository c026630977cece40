import type { Logger } from '../logging/logger.js';
import { NotificationListener } from './notification-listener.js';

/** What an in-process copy's sync takes from the configuration. */
export interface SyncOptions {
  /** PostgreSQL URL for LISTEN; absent on the embedded database, where one instance is all there is. */
  readonly databaseUrl?: string | undefined;
  readonly refreshSeconds: number;
}

export interface ReloadTriggerOptions extends SyncOptions {
  /** The NOTIFY channel writers signal on, in the transaction of their change. */
  readonly channel: string;
  /** Starts a reload; it must not throw (failures are the reloader's to log). */
  readonly reload: () => void;
  readonly log: Logger;
}

/**
 * When an in-process copy of shared data must reload: at start, on every NOTIFY on its channel, on
 * every (re)connection of the listener (notifications sent while it was away are lost), and
 * periodically as the backstop. Used by the permission overrides, the IdP mapping index and the
 * membership cache.
 */
export class ReloadTriggers {
  #listener: NotificationListener | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ReloadTriggerOptions) {}

  start(): void {
    const { reload } = this.options;
    reload();
    this.#timer = setInterval(reload, this.options.refreshSeconds * 1000);
    this.#timer.unref();
    if (this.options.databaseUrl) {
      this.#listener = new NotificationListener({ url: this.options.databaseUrl, channel: this.options.channel, onSignal: () => reload(), log: this.options.log });
      this.#listener.start();
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#listener?.stop();
  }
}
