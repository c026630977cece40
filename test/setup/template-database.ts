import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/daemon/db/database.js';
import { migrateToLatest } from '../../src/daemon/db/migrate.js';
import { createLogger } from '../../src/daemon/logging/logger.js';
import { BACKEND, copyPrefix, POSTGRES_ADMIN_URL, withDatabase } from '../helpers/backend.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: the data directory of a migrated database each test file copies. */
    pgliteTemplateDir: string;
    /** PostgreSQL: a migrated database each test file clones with CREATE DATABASE … TEMPLATE. */
    postgresTemplate: string;
  }
}

/** Migrates one template database per run, so each test file starts from a copy in about a second. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = createLogger('silent');
  if (BACKEND === 'pglite') {
    const root = await mkdtemp(join(tmpdir(), 'svc-test-template-'));
    const db = await openDatabase({ dataDir: root }, log);
    await db.withoutStatementLimits(migrateToLatest);
    await db.close();
    project.provide('pgliteTemplateDir', root);
    project.provide('postgresTemplate', '');
    return () => rm(root, { recursive: true, force: true });
  }
  const admin = knexFactory({ client: 'pg', connection: POSTGRES_ADMIN_URL, pool: { min: 0, max: 1 } });
  const template = `svc_tpl_${randomBytes(4).toString('hex')}`;
  await admin.raw(`CREATE DATABASE ${template}`);
  const db = await openDatabase({ databaseUrl: withDatabase(POSTGRES_ADMIN_URL!, template), dataDir: '' }, log);
  await db.withoutStatementLimits(migrateToLatest);
  await db.close();
  project.provide('pgliteTemplateDir', '');
  project.provide('postgresTemplate', template);
  return async () => {
    // Only this run's copies: another checkout's suite may be running on the same server.
    const copies = `${copyPrefix(template).replaceAll('_', '\\_')}%`;
    const { rows } = await admin.raw(`SELECT datname FROM pg_database WHERE datname LIKE ? OR datname = ?`, [copies, template]);
    for (const { datname } of rows as { datname: string }[]) await admin.raw(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.destroy();
  };
}
