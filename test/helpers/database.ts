import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/daemon/db/database.js';
import { createLogger } from '../../src/daemon/logging/logger.js';
import { BACKEND, copyPrefix, POSTGRES_ADMIN_URL, withDatabase } from './backend.js';

/** Where a fresh copy of the migrated template lives: what a daemon's environment would name. */
export interface DatabaseLocation {
  /** Environment for a daemon using this database (SERVICE_DATABASE_URL or SERVICE_DATA_DIR). */
  readonly env: Record<string, string>;
  open(): Promise<Database>;
  /** Removes the copy (the database must be closed). */
  drop(): Promise<void>;
}

/** A private copy of the migrated template on the suite's backend. */
export async function copyTemplate(): Promise<DatabaseLocation> {
  const log = createLogger('silent');
  if (BACKEND === 'pglite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-db-'));
    await cp(inject('pgliteTemplateDir'), dataDir, { recursive: true });
    return {
      env: { SERVICE_DATA_DIR: dataDir },
      open: () => openDatabase({ dataDir }, log),
      drop: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `${copyPrefix(inject('postgresTemplate'))}${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: POSTGRES_ADMIN_URL, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`CREATE DATABASE ${name} TEMPLATE ${inject('postgresTemplate')}`);
  } finally {
    await admin.destroy();
  }
  const url = withDatabase(POSTGRES_ADMIN_URL!, name);
  return {
    env: { SERVICE_DATABASE_URL: url },
    open: () => openDatabase({ databaseUrl: url, dataDir: '' }, log),
    drop: async () => {
      const dropper = knexFactory({ client: 'pg', connection: POSTGRES_ADMIN_URL, pool: { min: 0, max: 1 } });
      try {
        await dropper.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.destroy();
      }
    },
  };
}

/** A fresh database for one test file, opened; `close` closes and removes it. */
export async function freshDatabase(): Promise<{ db: Database; location: DatabaseLocation; close(): Promise<void> }> {
  const location = await copyTemplate();
  const db = await location.open();
  return {
    db,
    location,
    close: async () => {
      await db.close();
      await location.drop();
    },
  };
}

/** A knex over an address where nothing listens (port 1): every statement fails to connect, quickly and quietly. */
export function unreachableKnex(): Knex {
  const quiet = { warn() {}, error() {}, debug() {}, deprecate() {} };
  return knexFactory({ client: 'pg', connection: 'postgres://postgres@127.0.0.1:1/none', acquireConnectionTimeout: 300, log: quiet });
}
