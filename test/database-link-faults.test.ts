import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/daemon/config/config.js';
import { startDaemon, type RunningDaemon } from '../src/daemon/daemon.js';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { withDatabase } from './helpers/backend.js';
import { postgresAnswers, POSTGRES_SERVER_URL } from './helpers/postgres-server.js';
import { seedOrg, seedUser } from './helpers/seed.js';
import { TcpProxy } from './helpers/tcp-proxy.js';
import { BARE, createEndpoint, createSecret, seedFlow, signed, type Endpoint, type World } from './helpers/webhooks-fixtures.js';

/**
 * The link between the daemon and PostgreSQL failing under it: a partition (bytes go nowhere, nothing is
 * reset), resets, refused connections. Every request that needs the database answers 503
 * `database_unavailable` with Retry-After, never a bare 500 and never late; /health stays 200; the daemon
 * recovers by itself when the link returns. A proxy of the test's own sits between daemon and server (the
 * server is never stopped), so this runs wherever a PostgreSQL server answers, whichever backend the
 * suite uses; the embedded database has no link to lose.
 *
 * "Within 5 s" is each request's own deadline (an aborted fetch fails the test), not a measured speed.
 */
const available = await postgresAnswers();
const BUDGET_MS = 5000;
const KEY = 'link-fault-signing-key';
const INTERNAL_TOKEN = 'link-fault-internal-token-0123456789';

// A name of its own, outside the run's copies: the daemon migrates it through the proxy.
const database = `svc_linktest_${randomBytes(4).toString('hex')}`;
const admin = knexFactory({ client: 'pg', connection: POSTGRES_SERVER_URL, pool: { min: 0, max: 1 } });
const upstream = new URL(POSTGRES_SERVER_URL);
const proxy = new TcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
let direct: Knex;
let idp: DevIdp;
let daemon: RunningDaemon;
let dataDir: string;
let world: World;
let endpoint: Endpoint;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly code: string | undefined;
}

async function answer(path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${daemon.url}${path}`, { ...init, signal: AbortSignal.timeout(BUDGET_MS) });
  const text = await response.text();
  const body = text && response.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as { code?: string }) : {};
  return { status: response.status, headers: response.headers, code: body.code };
}

/** A data route: the runs of acme, as its admin. */
const listRuns = () => answer('/runs', { headers: { authorization: world.as.alice!, 'x-org-id': 'acme' } });

/** A signed webhook trigger with a fresh idempotency key. */
function trigger(key = randomUUID()): Promise<Answer> {
  const body = JSON.stringify({ params: {} });
  return answer(`/hooks/${endpoint.path_token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signed(KEY, body, { 'x-idempotency-key': key }) },
    body,
  });
}

function expectUnavailable(got: Answer): void {
  expect({ status: got.status, code: got.code }).toEqual({ status: 503, code: 'database_unavailable' });
  expect(Number(got.headers.get('retry-after'))).toBeGreaterThan(0);
}

/** Polls until the data route and the trigger answer again (bounded: 50 tries, 100 ms apart). */
async function recovered(): Promise<void> {
  let statuses: number[] = [];
  for (let attempt = 0; attempt < 50; attempt += 1) {
    statuses = [(await listRuns()).status, (await trigger()).status];
    if (statuses[0] === 200 && statuses[1] === 202) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(statuses).toEqual([200, 202]);
}

describe.skipIf(!available)('database link faults (PostgreSQL through a TCP proxy)', () => {
  beforeAll(async () => {
    await admin.raw(`CREATE DATABASE ${database}`);
    direct = knexFactory({ client: 'pg', connection: withDatabase(POSTGRES_SERVER_URL, database), pool: { min: 0, max: 2 } });
    await proxy.start();
    const proxied = new URL(withDatabase(POSTGRES_SERVER_URL, database));
    proxied.host = `127.0.0.1:${proxy.port}`;
    idp = await startDevIdp();
    dataDir = await mkdtemp(join(tmpdir(), 'svc-test-link-'));
    const config = loadConfig({
      SERVICE_PORT: '0',
      SERVICE_HOST: '127.0.0.1',
      SERVICE_LOG_LEVEL: 'silent',
      SERVICE_DATA_DIR: dataDir,
      SERVICE_DATABASE_URL: proxied.toString(),
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
      SERVICE_INTERNAL_API_TOKEN: INTERNAL_TOKEN,
    });
    daemon = await startDaemon(config, createLogger('silent'));
    const acme = await seedOrg(direct, 'acme', 'Acme');
    await seedUser(direct, { sub: 'sub-alice', username: 'alice' }, [{ orgSlug: 'acme', role: 'admin' }]);
    const alice = `Bearer ${await idp.mintAccessToken({ sub: 'sub-alice', username: 'alice', email: 'alice@example.test', realmRoles: [] })}`;
    world = { url: daemon.url, as: { alice } } as unknown as World;
    const flow = await seedFlow(direct, acme, { name: 'link', versions: [BARE] });
    const secret = await createSecret(world, 'alice', 'link/key', KEY);
    endpoint = await createEndpoint(world, { flow_id: flow, secret_id: secret, rate_limit_per_minute: 10_000 });
  });

  afterAll(async () => {
    proxy.heal();
    await proxy.start().catch(() => {});
    await daemon?.stop();
    await idp?.stop();
    await proxy.stop();
    await direct?.destroy();
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a partition: the data route and the trigger answer 503 database_unavailable within 5 s, /health 200; back by itself after', async () => {
    await recovered();
    proxy.partition();
    try {
      // Many at once, from the partition's first moment: more than the pool's connections, and triggers
      // queued behind a shared statement that will never be answered.
      const crowd = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? listRuns() : trigger())));
      for (const got of crowd) expectUnavailable(got);
      // Side by side: one of them takes the pooled connection (its statement never answered), the other
      // waits for the pool or opens a connection that never completes.
      const [runs, hooked, health] = await Promise.all([listRuns(), trigger(), answer('/health')]);
      expectUnavailable(runs);
      expectUnavailable(hooked);
      expect(health.status).toBe(200);
      // And a request arriving once the pool's connections were discarded.
      expectUnavailable(await listRuns());
    } finally {
      proxy.heal();
    }
    await recovered();
  });

  it.each(['rst', 'fin'] as const)(
    'connections accepted and ended (%s): 503 database_unavailable on every request, never 500; back after',
    async (kind) => {
      await recovered();
      proxy.reset(kind);
      try {
        const answers = await Promise.all([listRuns(), trigger(), listRuns(), trigger(), listRuns(), trigger()]);
        for (const got of answers) expectUnavailable(got);
        expect((await answer('/health')).status).toBe(200);
      } finally {
        proxy.heal();
      }
      await recovered();
    },
  );

  it('refused connections: 503 database_unavailable on the data route, the trigger and the maintenance tick; back after', async () => {
    await recovered();
    await proxy.stop();
    try {
      expectUnavailable(await listRuns());
      expectUnavailable(await trigger());
      expectUnavailable(await answer('/internal/maintenance/tick', { method: 'POST', headers: { 'x-internal-token': INTERNAL_TOKEN } }));
    } finally {
      await proxy.start();
    }
    await recovered();
  });

  it('a statement held past the statement timeout (a lock): 503 database_unavailable, and its connection serves on', async () => {
    await recovered();
    await direct.transaction(async (trx) => {
      await trx.raw('LOCK TABLE runs IN ACCESS EXCLUSIVE MODE');
      expectUnavailable(await listRuns());
    });
    expect((await listRuns()).status).toBe(200);
  });

  it('a lost acknowledgement: the trigger answers 503 database_unavailable though its delivery was stored; the same X-Idempotency-Key then answers 409 duplicate_delivery', async () => {
    await recovered();
    const key = randomUUID();
    // The statement reaches the server and commits; its answer never comes back.
    proxy.loseAnswers();
    try {
      expectUnavailable(await trigger(key));
    } finally {
      proxy.heal();
    }
    const stored = () =>
      direct('webhook_deliveries').where({ idempotency_key: key, response_status: 202 }).count<{ n: string }[]>({ n: '*' });
    expect(Number((await stored())[0]!.n)).toBe(1);
    await recovered();
    const retried = await trigger(key);
    expect({ status: retried.status, code: retried.code }).toEqual({ status: 409, code: 'duplicate_delivery' });
    expect(Number((await stored())[0]!.n)).toBe(1);
  });

  it('a read-only database (a standby, or a primary gone read-only): the trigger answers 503 database_unavailable', async () => {
    await recovered();
    await admin.raw(`ALTER DATABASE ${database} SET default_transaction_read_only = on`);
    try {
      // Sessions read the setting when they start: end the daemon's so its pool opens new ones.
      await admin.raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()', [database]);
      for (let attempt = 0; attempt < 3; attempt += 1) expectUnavailable(await trigger());
    } finally {
      await admin.raw(`ALTER DATABASE ${database} RESET default_transaction_read_only`);
      await admin.raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()', [database]);
    }
    await recovered();
  });
});
