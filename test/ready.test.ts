import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/daemon/config/config.js';
import { startDaemon, type RunningDaemon } from '../src/daemon/daemon.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { withDatabase } from './helpers/backend.js';
import { postgresAnswers, POSTGRES_SERVER_URL } from './helpers/postgres-server.js';
import { TcpProxy } from './helpers/tcp-proxy.js';

/**
 * Readiness follows the database. This needs a database server that can go away and come back: the
 * test puts a proxy in front of the real PostgreSQL and stops it. It runs in both suites (the embedded
 * database cannot become unreachable) and is skipped only where no PostgreSQL server answers.
 */
const ADMIN_URL = POSTGRES_SERVER_URL;

const available = await postgresAnswers();
const database = `svc_t_ready_${randomBytes(4).toString('hex')}`;
const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
const upstream = new URL(ADMIN_URL);
const proxy = new TcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
let daemon: RunningDaemon;

describe.skipIf(!available)('readiness against an unreachable database', () => {
  beforeAll(async () => {
    await admin.raw(`CREATE DATABASE ${database}`);
    await proxy.start();
    const proxied = new URL(withDatabase(ADMIN_URL, database));
    proxied.host = `127.0.0.1:${proxy.port}`;
    const config = loadConfig({ SERVICE_PORT: '0', SERVICE_LOG_LEVEL: 'silent', SERVICE_DATABASE_URL: proxied.toString() });
    daemon = await startDaemon(config, createLogger('silent'));
  });

  afterAll(async () => {
    await proxy.start().catch(() => {});
    await daemon?.stop();
    await proxy.stop();
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
  });

  it('answers 503 database_unavailable while the database is down, and 200 again when it is back', async () => {
    expect((await fetch(`${daemon.url}/ready`)).status).toBe(200);

    await proxy.stop();
    const down = await fetch(`${daemon.url}/ready`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { code: string }).code).toBe('database_unavailable');
    expect((await fetch(`${daemon.url}/health`)).status).toBe(200);

    await proxy.start();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
      status = (await fetch(`${daemon.url}/ready`)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});
