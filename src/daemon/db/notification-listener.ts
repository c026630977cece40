import pg from 'pg';
import type { Logger } from '../logging/logger.js';

/** Why a listener calls back: a notification, or a (re)connection after which everything must be reread. */
export type Signal = 'notification' | 'connected';

export interface ListenerOptions {
  /** The pool's connection settings (connect timeout, TCP keepalive), so a dead link is noticed here too. */
  readonly connection: Readonly<Record<string, unknown>>;
  readonly channel: string;
  /**
   * Called for each notification (with its payload), and after every (re)connection, since notifications
   * sent while disconnected are lost.
   */
  readonly onSignal: (reason: Signal, payload?: string) => void;
  readonly log: Logger;
}

/** The wait after the first failed attempt in a row, doubled after each further failure up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 100;
/**
 * Short, because nothing this instance caches is fresh until the listener is back (the caches are
 * emptied on reconnection): the link's return must be noticed within a second. An attempt against an
 * address that refuses costs a round trip; one that hangs waits for the connect timeout before the next.
 */
const RETRY_MAX_MS = 500;

/**
 * A dedicated PostgreSQL connection that LISTENs on one channel and reconnects whenever it is lost: at
 * once (a killed session or a restarted pooler is usually back already), then backing off from
 * RETRY_FIRST_MS to RETRY_MAX_MS while attempts fail. A connection lost before it had lived
 * RETRY_MAX_MS goes on backing off instead, so a server that drops every session is not asked in a
 * loop. Outside knex's pool, because a listening connection must stay checked out.
 */
export class NotificationListener {
  #client: pg.Client | undefined;
  #stopped = false;
  #failures = 0;
  #connectedAt = 0;
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
    const client = new pg.Client({ ...(this.options.connection as pg.ClientConfig), application_name: 'svcd-listener' });
    client.on('error', (error) => this.options.log.warn({ err: error }, 'notification listener connection failed'));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => this.options.onSignal('notification', message.payload));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.options.channel}`);
      this.#client = client;
      this.#connectedAt = Date.now();
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
    if (Date.now() - this.#connectedAt < RETRY_MAX_MS) return this.#schedule();
    this.#failures = 0;
    void this.#connect();
  }

  #schedule(): void {
    if (this.#stopped) return;
    const delay = Math.min(RETRY_FIRST_MS * 2 ** this.#failures, RETRY_MAX_MS);
    this.#failures += 1;
    this.#timer = setTimeout(() => void this.#connect(), delay);
  }
}
