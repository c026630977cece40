import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import type { Logger } from '../logging/logger.js';
import { NotificationListener, type Signal } from './notification-listener.js';

export type DatabaseKind = 'postgres' | 'pglite';

/** The system of record: knex over PostgreSQL, or over embedded PGlite when no URL is configured. */
export interface Database {
  readonly kind: DatabaseKind;
  readonly knex: Knex;
  /**
   * Calls `onSignal` for every NOTIFY on `channel` (committed writes, this instance's included) and after
   * every (re)connection of the listening session, since notifications sent while it was away are lost.
   */
  listen(channel: string, onSignal: (signal: Signal) => void): Listening;
  /** Answers when the database does, within `timeoutMs`; throws otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface Listening {
  stop(): Promise<void>;
}

export interface DatabaseOptions {
  readonly databaseUrl?: string | undefined;
  readonly dataDir: string;
}

const PING_TIMEOUT_MS = 2000;

export async function openDatabase(options: DatabaseOptions, log: Logger): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, log) : openPglite(join(options.dataDir, 'pglite'), log);
}

/** knex reports pool trouble through its own logger; route it into ours instead of the console. */
function knexLog(log: Logger): Knex.Config['log'] {
  return {
    warn: (message: unknown) => log.warn({ source: 'knex' }, String(message)),
    error: (message: unknown) => log.error({ source: 'knex' }, String(message)),
    deprecate: (method: string, alternative: string) => log.warn({ source: 'knex' }, `${method} is deprecated; use ${alternative}`),
    debug: (message: unknown) => log.debug({ source: 'knex' }, String(message)),
  };
}

function openPostgres(url: string, log: Logger): Database {
  const knex = knexFactory({
    client: 'pg',
    log: knexLog(log),
    connection: { connectionString: url, connectionTimeoutMillis: 3000 },
    // Fail fast when the server is gone, so /ready and requests answer instead of queueing for a minute.
    acquireConnectionTimeout: 5000,
    pool: { min: 0, max: 10 },
  });
  return wrap('postgres', knex, (channel, onSignal) => {
    const listener = new NotificationListener({ url, channel, onSignal, log });
    listener.start();
    return listener;
  });
}

/**
 * The raw PGlite handle goes to knex and nowhere else: PGlite has one connection, and a second user of
 * the handle would silently run inside whatever transaction knex has open.
 */
async function openPglite(directory: string, log: Logger): Promise<Database> {
  const firstStart = !existsSync(join(directory, 'PG_VERSION'));
  if (firstStart) {
    await mkdir(directory, { recursive: true });
    log.info({ directory }, 'creating the embedded database (first start only; this takes several seconds)');
  }
  const pglite = await PGlite.create(directory);
  const knex = knexFactory({ client: ClientPgLite as unknown as typeof knexFactory.Client, connection: { pglite } as never, log: knexLog(log) });
  // PGlite's one session hears its own NOTIFYs once it LISTENs; the handle only delivers them here, it runs nothing.
  return wrap('pglite', knex, (channel, onSignal) => {
    const off = pglite.onNotification((heard) => {
      if (heard === channel) onSignal('notification');
    });
    knex.raw(`LISTEN ${channel}`).then(
      () => onSignal('connected'),
      (error: unknown) => log.warn({ err: error, channel }, 'could not LISTEN on the embedded database; changes made by plain SQL wait for the periodic refresh'),
    );
    return { stop: async () => off() };
  });
}

function wrap(kind: DatabaseKind, knex: Knex, listen: Database['listen']): Database {
  return {
    kind,
    knex,
    listen,
    async ping(timeoutMs = PING_TIMEOUT_MS) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([knex.raw('select 1'), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await knex.destroy();
    },
  };
}
