import { TRIGGER_CONFIG_CHANNEL } from './channels.js';
import { CacheGroup, NotifiedCache } from './notified-cache.js';
import { ReloadTriggers, type SyncOptions } from './reload-triggers.js';

/**
 * The caches of the run-starting paths (the flow with its version, the endpoint by its token, the
 * signing secret's values), emptied together: by the repositories that write those tables, after their
 * commit, so this instance's next request sees the change; by `svc_trigger_config` for every other
 * instance and for plain SQL; and every SERVICE_PERMISSION_REFRESH_SECONDS as the backstop.
 */
export class TriggerConfig {
  readonly #group = new CacheGroup();
  readonly #triggers: ReloadTriggers;

  constructor(private readonly options: SyncOptions) {
    this.#triggers = new ReloadTriggers({ ...options, channel: TRIGGER_CONFIG_CHANNEL, reload: () => this.invalidate() });
  }

  /** A new member cache, bounded in time by the refresh period. */
  cache<V>(): NotifiedCache<V> {
    return this.#group.add(new NotifiedCache<V>({ ttlMs: this.options.refreshSeconds * 1000 }));
  }

  /** Called after a write commits. */
  readonly invalidate = (): void => this.#group.invalidate();

  start(): void {
    this.#triggers.start();
  }

  async stop(): Promise<void> {
    await this.#triggers.stop();
  }
}
