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
 * Several instances on one PostgreSQL database. Runs in both suites wherever a PostgreSQL server
 * answers (the embedded database serves one instance only).
 */
const ADMIN_URL = POSTGRES_SERVER_URL;

const available = await postgresAnswers();
const database = `svc_t_prop_${randomBytes(4).toString('hex')}`;
const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 2 } });
const upstream = new URL(ADMIN_URL);
const proxy = new TcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
const daemons: RunningDaemon[] = [];

function start(url: string): Promise<RunningDaemon> {
  // Development mode: every request is the mock admin, and a `disabled` override still refuses it.
  const config = loadConfig({ SERVICE_PORT: '0', SERVICE_LOG_LEVEL: 'silent', SERVICE_DATABASE_URL: url, SERVICE_AUTH_DISABLED: 'true' });
  return startDaemon(config, createLogger('silent')).then((d) => (daemons.push(d), d));
}

async function statusWithin(url: string, expected: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let status = 0;
  do {
    status = (await fetch(url)).status;
    if (status === expected) return status;
    await new Promise((resolve) => setTimeout(resolve, 25));
  } while (Date.now() < deadline);
  return status;
}

const disable = (d: RunningDaemon, path: string) =>
  fetch(`${d.url}/settings/permissions/override`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path, policy: 'disabled' }),
  });

describe.skipIf(!available)('overrides across instances', () => {
  let a: RunningDaemon;
  let b: RunningDaemon;

  beforeAll(async () => {
    await admin.raw(`CREATE DATABASE ${database}`);
    a = await start(withDatabase(ADMIN_URL, database));
    b = await start(withDatabase(ADMIN_URL, database));
  });

  afterAll(async () => {
    await proxy.start().catch(() => {});
    for (const d of daemons) await d.stop();
    await proxy.stop();
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
  });

  it('reach another instance within one second', async () => {
    expect((await fetch(`${b.url}/runs`)).status).toBe(200);
    expect((await disable(a, '/runs')).status).toBe(200);
    expect((await fetch(`${a.url}/runs`)).status).toBe(403);
    expect(await statusWithin(`${b.url}/runs`, 403, 1000)).toBe(403);
  });

  it('still arrive after the listener connection is killed (full reload on reconnect)', async () => {
    const killed = await admin.raw(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svcd-listener' AND datname = ?`,
      [database],
    );
    expect(killed.rows.length).toBeGreaterThanOrEqual(2);
    expect((await disable(a, '/runs/filter-options')).status).toBe(200);
    expect(await statusWithin(`${b.url}/runs/filter-options`, 403, 10_000)).toBe(403);
  });

  it('serve registry defaults on an instance started with the database down, then pick the overrides up', async () => {
    const proxied = new URL(withDatabase(ADMIN_URL, database));
    await proxy.start();
    proxied.host = `127.0.0.1:${proxy.port}`;
    await proxy.stop();

    const c = await start(proxied.toString());
    expect((await fetch(`${c.url}/ready`)).status).toBe(503);
    // The disabled override on GET /runs is in the database, but this instance cannot know it yet.
    expect((await fetch(`${c.url}/health`)).status).toBe(200);
    const doc = (await (await fetch(`${c.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { 'x-policy': string }>> };
    expect(doc.paths['/runs']!.get!['x-policy']).toBe('viewer');

    await proxy.start();
    expect(await statusWithin(`${c.url}/runs`, 403, 15_000)).toBe(403);
    expect(await statusWithin(`${c.url}/ready`, 200, 5000)).toBe(200);
  });
});
