import type { Channel } from './channels.js';
import type { Database, Listening } from './database.js';

/** What an in-process copy's sync takes from the database and the configuration. */
export interface SyncOptions {
  /** The database's LISTEN (on PostgreSQL a session of its own, on PGlite its one session). */
  readonly listen: Database['listen'];
  readonly refreshSeconds: number;
}

export interface ReloadTriggerOptions extends SyncOptions {
  /** The NOTIFY channel writers signal on, in the transaction of their change. */
  readonly channel: Channel;
  /** Starts a reload; it must not throw (failures are the reloader's to log). */
  readonly reload: () => void;
}

/**
 * When an in-process copy of shared data must reload: at start, on every NOTIFY on its channel, on
 * every (re)connection of the listener (notifications sent while it was away are lost), and
 * periodically as the backstop. Used by the permission overrides, the IdP mapping index and the
 * membership cache.
 */
export class ReloadTriggers {
  #listener: Listening | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ReloadTriggerOptions) {}

  start(): void {
    const { reload } = this.options;
    reload();
    this.#timer = setInterval(reload, this.options.refreshSeconds * 1000);
    this.#timer.unref();
    this.#listener = this.options.listen(this.options.channel, () => reload());
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#listener?.stop();
  }
}
