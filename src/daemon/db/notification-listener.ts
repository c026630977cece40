import pg from 'pg';
import type { Logger } from '../logging/logger.js';

/** Why a listener calls back: a notification, or a (re)connection after which everything must be reread. */
export type Signal = 'notification' | 'connected';

export interface ListenerOptions {
  readonly url: string;
  readonly channel: string;
  /** Called for each notification, and after every (re)connection, since notifications sent while disconnected are lost. */
  readonly onSignal: (reason: Signal) => void;
  readonly log: Logger;
}

/**
 * A dedicated PostgreSQL connection that LISTENs on one channel and reconnects (backing off up to 10 s)
 * whenever it is lost. Outside knex's pool, because a listening connection must stay checked out.
 */
export class NotificationListener {
  #client: pg.Client | undefined;
  #stopped = false;
  #retryMs = 500;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ListenerOptions) {}

  start(): void {
    void this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#client?.end().catch(() => {});
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    const client = new pg.Client({ connectionString: this.options.url, application_name: 'svcd-listener', connectionTimeoutMillis: 3000 });
    client.on('error', (error) => this.options.log.warn({ err: error }, 'notification listener connection failed'));
    client.on('end', () => this.#lost(client));
    client.on('notification', () => this.options.onSignal('notification'));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.options.channel}`);
      this.#client = client;
      this.#retryMs = 500;
      this.options.onSignal('connected');
    } catch (error) {
      this.options.log.warn({ err: error }, 'notification listener could not connect; retrying');
      await client.end().catch(() => {});
      this.#schedule();
    }
  }

  #lost(client: pg.Client): void {
    if (this.#stopped || client !== this.#client) return;
    this.#client = undefined;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#connect(), this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, 10_000);
  }
}
