import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import type { Logger } from '../logging/logger.js';
import { SETTINGS } from '../config/settings.js';
import { NotificationListener, type Signal } from './notification-listener.js';
import { discardAfterQueryTimeout, pgConnection, type LinkLimits } from './pg-link.js';

export type DatabaseKind = 'postgres' | 'pglite';

/** The system of record: knex over PostgreSQL, or over embedded PGlite when no URL is configured. */
export interface Database {
  readonly kind: DatabaseKind;
  readonly knex: Knex;
  /**
   * Calls `onSignal` for every NOTIFY on `channel` (committed writes, this instance's included; with the
   * payload) and after
   * every (re)connection of the listening session, since notifications sent while it was away are lost.
   */
  listen(channel: string, onSignal: (signal: Signal, payload?: string) => void): Listening;
  /** Answers when the database does, within `timeoutMs`; throws otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  /**
   * Runs `work` over a connection without the limits on a statement's duration (migrations): on
   * PostgreSQL a knex of its own with one connection, closed after; on PGlite, which has none, `knex`.
   */
  withoutStatementLimits<T>(work: (knex: Knex) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface Listening {
  stop(): Promise<void>;
}

export interface DatabaseOptions extends Partial<LinkLimits> {
  readonly databaseUrl?: string | undefined;
  readonly dataDir: string;
}

/** The settings' defaults, for a caller (a test, a bench) that names no limits. */
const DEFAULT_LIMITS: LinkLimits = {
  databaseConnectTimeoutMs: Number(SETTINGS.databaseConnectTimeoutMs.default),
  databasePoolMax: Number(SETTINGS.databasePoolMax.default),
  databaseAcquireTimeoutMs: Number(SETTINGS.databaseAcquireTimeoutMs.default),
  databaseQueryTimeoutMs: Number(SETTINGS.databaseQueryTimeoutMs.default),
  databaseStatementTimeoutMs: Number(SETTINGS.databaseStatementTimeoutMs.default),
  databaseIdleInTransactionTimeoutMs: Number(SETTINGS.databaseIdleInTransactionTimeoutMs.default),
  databaseKeepaliveDelayMs: Number(SETTINGS.databaseKeepaliveDelayMs.default),
};

const PING_TIMEOUT_MS = 2000;

export async function openDatabase(options: DatabaseOptions, log: Logger): Promise<Database> {
  if (!options.databaseUrl) return openPglite(join(options.dataDir, 'pglite'), log);
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(limits) as (keyof LinkLimits)[]) limits[key] = options[key] ?? limits[key];
  return openPostgres(options.databaseUrl, limits, log);
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

function openPostgres(url: string, limits: LinkLimits, log: Logger): Database {
  const knex = knexFactory({
    client: 'pg',
    log: knexLog(log),
    connection: pgConnection(url, limits),
    // Fail fast when the server is gone, so /ready and requests answer instead of queueing for a minute.
    acquireConnectionTimeout: limits.databaseAcquireTimeoutMs,
    pool: {
      min: 0,
      max: limits.databasePoolMax,
      afterCreate: (
        connection: Parameters<typeof discardAfterQueryTimeout>[0],
        done: (error: Error | null, connection: unknown) => void,
      ) => {
        discardAfterQueryTimeout(connection);
        done(null, connection);
      },
    },
  });
  // One session for every channel; without the statement limits: a LISTEN session runs no statements worth cutting.
  const listener = new NotificationListener({ connection: pgConnection(url, limits, false), log });
  const listen: Database['listen'] = (channel, onSignal) => listener.listen(channel, onSignal);
  const withoutStatementLimits: Database['withoutStatementLimits'] = async (work) => {
    const unlimited = knexFactory({
      client: 'pg',
      log: knexLog(log),
      connection: pgConnection(url, limits, false),
      acquireConnectionTimeout: limits.databaseAcquireTimeoutMs,
      pool: { min: 0, max: 1 },
    });
    try {
      return await work(unlimited);
    } finally {
      await unlimited.destroy();
    }
  };
  return wrap('postgres', knex, listen, withoutStatementLimits, () => listener.close());
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
  const knex = knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    connection: { pglite } as never,
    log: knexLog(log),
  });
  // PGlite's one session hears its own NOTIFYs once it LISTENs; the handle only delivers them here, it runs nothing.
  const listen: Database['listen'] = (channel, onSignal) => {
    const off = pglite.onNotification((heard, payload) => {
      if (heard === channel) onSignal('notification', payload);
    });
    knex.raw(`LISTEN ${channel}`).then(
      () => onSignal('connected'),
      (error: unknown) =>
        log.warn(
          { err: error, channel },
          'could not LISTEN on the embedded database; changes made by plain SQL wait for the periodic refresh',
        ),
    );
    return { stop: async () => off() };
  };
  return wrap('pglite', knex, listen, (work) => work(knex));
}

function wrap(
  kind: DatabaseKind,
  knex: Knex,
  listen: Database['listen'],
  withoutStatementLimits: Database['withoutStatementLimits'],
  /** What else closes with it: on PostgreSQL the listening session, whatever subscriptions are left. */
  closeListening: () => Promise<void> = async () => {},
): Database {
  return {
    kind,
    knex,
    listen,
    withoutStatementLimits,
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
      await closeListening();
      await knex.destroy();
    },
  };
}
