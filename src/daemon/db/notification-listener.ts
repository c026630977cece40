import pg from 'pg';
import type { Logger } from '../logging/logger.js';

/** Why a listener calls back: a notification, or a (re)connection after which everything must be reread. */
export type Signal = 'notification' | 'connected';

/**
 * Called for each notification on its channel (with its payload), and once its channel is listened on
 * after every (re)connection, since notifications sent while disconnected are lost.
 */
export type OnSignal = (reason: Signal, payload?: string) => void;

export interface ListenerOptions {
  /** The pool's connection settings (connect timeout, TCP keepalive), so a dead link is noticed here too. */
  readonly connection: Readonly<Record<string, unknown>>;
  readonly log: Logger;
}

/** One subscription: its channel, its callback, and the session it was last told `connected` on. */
interface Subscriber {
  readonly channel: string;
  readonly onSignal: OnSignal;
  toldOn: pg.Client | undefined;
}

/** The wait after the first failed attempt in a row, doubled after each further failure up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 100;
/**
 * Short, because nothing this instance caches is fresh until the listener is back (the caches are
 * emptied on reconnection): the link's return must be noticed within a second. An attempt against an
 * address that refuses costs a round trip; one that hangs waits for the connect timeout before the next.
 */
const RETRY_MAX_MS = 500;

/** Channels are the code's own names, put in LISTEN as identifiers: nothing else gets there. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * One dedicated PostgreSQL connection that LISTENs on every channel this instance subscribes to (ten
 * domains listen; a session each would take ten of the server's connections per daemon) and reconnects
 * whenever it is lost: at once (a killed session or a restarted pooler is usually back already), then
 * backing off from RETRY_FIRST_MS to RETRY_MAX_MS while attempts fail. A connection lost before it had
 * lived RETRY_MAX_MS goes on backing off instead, so a server that drops every session is not asked in
 * a loop. Outside knex's pool, because a listening connection must stay checked out. The session opens
 * with the first subscription and closes with the last.
 */
export class NotificationListener {
  readonly #subscribers = new Set<Subscriber>();
  /** The connected session, once its connection is up. */
  #client: pg.Client | undefined;
  /** A session being opened, or open: set from the start of an attempt to the loss or the close. */
  #session: pg.Client | undefined;
  /** Channels LISTENed on the current session. */
  #listened = new Set<string>();
  /** LISTEN and UNLISTEN statements, one after another on the session. */
  #syncing: Promise<void> = Promise.resolve();
  #failures = 0;
  #connectedAt = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ListenerOptions) {}

  /** Subscribes `onSignal` to `channel`; the handle's `stop` ends the subscription (and the session, with the last). */
  listen(channel: string, onSignal: OnSignal): { stop(): Promise<void> } {
    if (!CHANNEL.test(channel)) throw new TypeError(`not a channel name: ${channel}`);
    const subscriber: Subscriber = { channel, onSignal, toldOn: undefined };
    this.#subscribers.add(subscriber);
    if (this.#session === undefined && this.#timer === undefined) void this.#connect();
    else this.#sync();
    return {
      stop: async () => {
        if (!this.#subscribers.delete(subscriber)) return;
        if (this.#subscribers.size > 0) return this.#sync();
        await this.#close();
      },
    };
  }

  /** Ends every subscription and the session (the database closing). */
  async close(): Promise<void> {
    this.#subscribers.clear();
    await this.#close();
  }

  async #close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const session = this.#session;
    this.#session = undefined;
    this.#client = undefined;
    await session?.end().catch(() => {});
  }

  async #connect(): Promise<void> {
    this.#timer = undefined;
    if (this.#subscribers.size === 0) return;
    const client = new pg.Client({ ...(this.options.connection as pg.ClientConfig), application_name: 'svcd-listener' });
    this.#session = client;
    client.on('error', (error) => this.options.log.warn({ err: error }, 'notification listener connection failed'));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      for (const subscriber of this.#subscribers)
        if (subscriber.channel === message.channel) subscriber.onSignal('notification', message.payload);
    });
    try {
      await client.connect();
    } catch (error) {
      if (this.#session !== client) return;
      this.options.log.warn({ err: error }, 'notification listener could not connect; retrying');
      this.#session = undefined;
      await client.end().catch(() => {});
      return this.#schedule();
    }
    if (this.#session !== client) return void client.end().catch(() => {});
    this.#client = client;
    this.#listened = new Set();
    this.#connectedAt = Date.now();
    return this.#sync();
  }

  /**
   * Brings the session's channels in line with the subscriptions, then tells each subscriber whose
   * channel is listened on and who was not told on this session yet that it is connected.
   */
  #sync(): Promise<void> {
    this.#syncing = this.#syncing
      .then(async () => {
        // The session and its channels as they were when this turn began: a reconnection replaces both.
        const client = this.#client;
        const listened = this.#listened;
        if (!client) return;
        const wanted = new Set([...this.#subscribers].map((s) => s.channel));
        try {
          for (const channel of wanted) {
            if (listened.has(channel)) continue;
            await client.query(`LISTEN ${channel}`);
            listened.add(channel);
          }
          for (const channel of listened) {
            if (wanted.has(channel)) continue;
            await client.query(`UNLISTEN ${channel}`);
            listened.delete(channel);
          }
        } catch (error) {
          // The session is failing (or was closed): its end event reconnects, and the next session listens afresh.
          if (client === this.#client) this.options.log.warn({ err: error }, 'notification listener could not LISTEN');
          return;
        }
        for (const subscriber of this.#subscribers) {
          if (client !== this.#client) return;
          if (subscriber.toldOn === client || !listened.has(subscriber.channel)) continue;
          subscriber.toldOn = client;
          subscriber.onSignal('connected');
        }
      })
      // A subscriber's callback that throws must not stop every later turn of the chain.
      .catch((error: unknown) => this.options.log.warn({ err: error }, 'a notification subscriber failed on connection'));
    return this.#syncing;
  }

  /** A connected session ended (one that never connected is retried by `#connect` itself). */
  #lost(client: pg.Client): void {
    if (client !== this.#client) return;
    this.#session = undefined;
    this.#client = undefined;
    if (this.#subscribers.size === 0) return;
    if (Date.now() - this.#connectedAt < RETRY_MAX_MS) return this.#schedule();
    this.#failures = 0;
    void this.#connect();
  }

  #schedule(): void {
    const delay = Math.min(RETRY_FIRST_MS * 2 ** this.#failures, RETRY_MAX_MS);
    this.#failures += 1;
    this.#timer = setTimeout(() => void this.#connect(), delay);
  }
}
