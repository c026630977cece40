import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformHealthAnswer } from '../src/shared/api/platform-health.js';
import { loadConfig } from '../src/daemon/config/config.js';
import { startDaemon, type RunningDaemon } from '../src/daemon/daemon.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { withDatabase } from './helpers/backend.js';
import { postgresAnswers, POSTGRES_SERVER_URL } from './helpers/postgres-server.js';
import { TcpProxy } from './helpers/tcp-proxy.js';

/**
 * The database lost under the daemon: `GET /platform/health` still answers 200, its report saying the
 * database is down, rather than the 503 of the routes that need the database to answer at all. A proxy of
 * the test's own sits between daemon and server, so this runs wherever a PostgreSQL server answers,
 * whichever backend the suite uses. The deadline is the request's own (not a measured speed).
 */
const available = await postgresAnswers();
const BUDGET_MS = 8000;
const database = `svc_healthtest_${randomBytes(4).toString('hex')}`;
const admin = knexFactory({ client: 'pg', connection: POSTGRES_SERVER_URL, pool: { min: 0, max: 1 } });
const upstream = new URL(POSTGRES_SERVER_URL);
const proxy = new TcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
let daemon: RunningDaemon;
let dataDir: string;

async function health(): Promise<{ status: number; body: PlatformHealthAnswer }> {
  const response = await fetch(`${daemon.url}/platform/health`, { signal: AbortSignal.timeout(BUDGET_MS) });
  return { status: response.status, body: (await response.json()) as PlatformHealthAnswer };
}

describe.skipIf(!available)('GET /platform/health with the database lost', () => {
  beforeAll(async () => {
    await admin.raw(`CREATE DATABASE ${database}`);
    await proxy.start();
    const proxied = new URL(withDatabase(POSTGRES_SERVER_URL, database));
    proxied.host = `127.0.0.1:${proxy.port}`;
    dataDir = await mkdtemp(join(tmpdir(), 'svc-test-health-'));
    const config = loadConfig({
      SERVICE_PORT: '0',
      SERVICE_HOST: '127.0.0.1',
      SERVICE_LOG_LEVEL: 'silent',
      SERVICE_DATA_DIR: dataDir,
      SERVICE_DATABASE_URL: proxied.toString(),
      SERVICE_AUTH_DISABLED: 'true',
      SERVICE_SCHEDULER_ENABLED: 'false',
    });
    daemon = await startDaemon(config, createLogger('silent'));
  });

  afterAll(async () => {
    proxy.heal();
    await daemon?.stop();
    await proxy.stop();
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a partition: 200 with the database check down and the overall status down', async () => {
    proxy.partition();
    try {
      const { status, body } = await health();
      expect(status).toBe(200);
      expect(body.status).toBe('down');
      const check = body.checks.find((c) => c.name === 'database')!;
      expect(check.status).toBe('down');
      // The report's limit (timeout) or the link's own limits (database_unavailable), whichever a loaded host lets come first.
      expect(['timeout', 'database_unavailable']).toContain(check.detail.reason);
    } finally {
      proxy.heal();
    }
  });
});
