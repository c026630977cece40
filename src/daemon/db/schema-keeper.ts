import type { Logger } from '../logging/logger.js';
import type { Database } from './database.js';
import { migrateToLatest } from './migrate.js';

const RETRY_MS = 2000;

/**
 * Brings the schema up to date at start-up. When the database cannot be reached, start-up goes on (the
 * instance serves, /ready answers 503) and migration is retried until it succeeds; a migration that
 * fails against a reachable database is a real error and stops start-up.
 */
export class SchemaKeeper {
  #ready = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #waiting: (() => void)[] = [];

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
  ) {}

  get ready(): boolean {
    return this.#ready;
  }

  async start(): Promise<void> {
    if (await this.#attempt()) return;
    const retry = async () => {
      if (await this.#attempt()) for (const run of this.#waiting.splice(0)) run();
      else this.#timer = setTimeout(() => void retry(), RETRY_MS);
    };
    this.#timer = setTimeout(() => void retry(), RETRY_MS);
  }

  /** Runs `callback` once the schema is ready: at once if it is, else when the database first answers. */
  whenReady(callback: () => void): void {
    if (this.#ready) callback();
    else this.#waiting.push(callback);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  async #attempt(): Promise<boolean> {
    try {
      const ran = await this.db.withoutStatementLimits(migrateToLatest);
      if (ran.length > 0) this.log.info({ migrations: ran }, `applied ${ran.length} migration(s)`);
      this.#ready = true;
      return true;
    } catch (error) {
      const reachable = await this.db.ping().then(
        () => true,
        () => false,
      );
      if (reachable) throw error;
      this.log.warn({ err: error }, 'database unreachable at start-up; serving registry defaults and retrying');
      return false;
    }
  }
}
