import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import { loadConfig } from '../src/daemon/config/config.js';
import { startDaemon } from '../src/daemon/daemon.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { cpuMeter, freePort, median, pairedRatio, startServer, type CpuSplit } from './lib.js';
import { openScratchDatabase } from './scratch-database.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const BARE_INSERT = fileURLToPath(new URL('./servers/bare-koa-insert.js', import.meta.url));
const BARE_KOA = fileURLToPath(new URL('./servers/bare-koa.js', import.meta.url));
const SIGNING_KEY = 'bench-webhook-signing-key';
/** Every daemon of the figure opens the same database, so they share one key of the built-in secret backend. */
const SECRETS_KEY = randomBytes(32).toString('hex');
const PROFILED_TRIGGERS = 50;

export interface WebhookTriggerOptions {
  readonly postgresUrl: string;
  readonly seconds: number;
  readonly rounds: number;
}

interface Subject {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** Each request its own `X-Idempotency-Key`. */
  readonly freshKey?: boolean;
  readonly expect: 200 | 201 | 202 | 404 | 429;
  /** The process answering, whose CPU BENCH_CPU_SPLIT reports. */
  readonly pid: number;
}

/** Answers per second with the expected status, over loopback, bounded in connections and seconds; any other status fails the figure. */
async function perSecond(subject: Subject, seconds: number, split?: CpuSplit[]): Promise<number> {
  const meter = cpuMeter(subject.pid);
  const result = await autocannon({
    url: subject.url,
    connections: 16,
    duration: seconds,
    pipelining: 1,
    requests: [
      {
        method: subject.method,
        headers: subject.headers,
        ...(subject.body === undefined ? {} : { body: subject.body }),
        ...(subject.freshKey
          ? {
              setupRequest: (request: { headers?: Record<string, string> }) => ({
                ...request,
                headers: { ...request.headers, 'x-idempotency-key': randomUUID() },
              }),
            }
          : {}),
      },
    ],
    expectBody: undefined,
  } as autocannon.Options);
  const wanted = Math.floor(subject.expect / 100);
  const good = wanted === 2 ? result['2xx'] : result['4xx'];
  // The shedding daemon's backstop refills one token a minute: that one request is accepted, rightly.
  const stray = wanted === 2 ? result.non2xx : result['5xx'] + Math.max(0, result['2xx'] - Math.ceil(seconds / 60));
  if (good === 0 || result.errors > 0 || result.timeouts > 0 || stray > 0) {
    const sample = await fetch(subject.url, {
      method: subject.method,
      headers: { ...subject.headers, ...(subject.freshKey ? { 'x-idempotency-key': randomUUID() } : {}) },
      body: subject.body ?? null,
    });
    throw new Error(
      `${subject.method} ${subject.url}: ${result['2xx']} 2xx, ${result['4xx']} 4xx, ${result['5xx']} 5xx, ${result.errors} errors, ${result.timeouts} timeouts; one more answers ${sample.status} ${await sample.text()}`,
    );
  }
  split?.push(meter(result.requests.total));
  return result.requests.average;
}

/** An admin of one organization, a committed flow with inputs and a target role, three devices. */
async function seed(knex: Knex): Promise<{ flowId: string; deviceIds: string[] }> {
  const [org] = await knex('organizations').insert({ slug: 'bench', name: 'Bench' }).returning('id');
  const orgId = (org as { id: string }).id;
  const [user] = await knex('users').insert({ sub: 'bench-admin', username: 'bench-admin' }).returning('id');
  await knex('org_memberships').insert({ user_id: (user as { id: string }).id, org_id: orgId, role: 'admin', source: 'manual' });
  const definition = {
    steps: [{ id: 'noop', handler: 'general.noop', config: {}, target_role: 'routers' }],
    edges: [],
    inputs: [
      { name: 'change_id', type: 'string', required: true, pattern: 'CHG[0-9]+' },
      { name: 'mode', type: 'select', options: ['check', 'apply'], default: 'check' },
    ],
    target_roles: [{ name: 'routers', min_devices: 1, max_devices: 10 }],
  };
  const [flow] = await knex('flows')
    .insert({ org_id: orgId, name: 'bench', draft_json: JSON.stringify(definition), draft_dirty: false, latest_version: 1 })
    .returning('id');
  const flowId = (flow as { id: string }).id;
  await knex('flow_versions').insert({ flow_id: flowId, version: 1, definition_json: JSON.stringify(definition) });
  const devices = await knex('devices')
    .insert(Array.from({ length: 3 }, (_, i) => ({ org_id: orgId, name: `r${i}` })))
    .returning('id');
  return { flowId, deviceIds: (devices as { id: string }[]).map((d) => d.id) };
}

async function api(base: string, token: string, path: string, body: unknown): Promise<{ id: string; path_token?: string }> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-org-id': 'bench', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string; path_token?: string };
}

/** Headers of a valid HMAC for `body`; the timestamp stays inside the endpoint's replay window for the whole figure. */
function signedHeaders(body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', SIGNING_KEY).update(`${timestamp}.${body}`).digest('hex');
  return { 'content-type': 'application/json', 'x-service-timestamp': timestamp, 'x-service-signature': signature };
}

/**
 * Round trips of one accepted trigger, counted in this process on a daemon over the same database (the
 * measured daemons are child processes): every statement knex sends, transaction control included.
 */
async function queriesPerTrigger(
  databaseUrl: string,
  path: string,
  body: string,
): Promise<{ queries: number; statements: Map<string, number> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-webhook-'));
  const config = loadConfig({
    SERVICE_PORT: '0',
    SERVICE_HOST: '127.0.0.1',
    SERVICE_LOG_LEVEL: 'warn',
    SERVICE_DATA_DIR: dataDir,
    SERVICE_DATABASE_URL: databaseUrl,
    SERVICE_SECRETS_ENCRYPTION_KEY: SECRETS_KEY,
  });
  const daemon = await startDaemon(config, createLogger(config.logLevel));
  const statements = new Map<string, number>();
  let queries = 0;
  const listener = (query: { sql: string }) => {
    queries += 1;
    const shape = query.sql.replace(/\s+/g, ' ').slice(0, 70);
    statements.set(shape, (statements.get(shape) ?? 0) + 1);
  };
  try {
    // One warm-up trigger fills the caches a steady stream finds warm (organization lookups, the known-token map).
    await fetch(`${daemon.url}${path}`, { method: 'POST', headers: { ...signedHeaders(body), 'x-idempotency-key': randomUUID() }, body });
    daemon.services.db.knex.on('query', listener);
    for (let i = 0; i < PROFILED_TRIGGERS; i += 1) {
      const response = await fetch(`${daemon.url}${path}`, {
        method: 'POST',
        headers: { ...signedHeaders(body), 'x-idempotency-key': randomUUID() },
        body,
      });
      if (response.status !== 202) throw new Error(`profiling trigger answered ${response.status}: ${await response.text()}`);
    }
  } finally {
    daemon.services.db.knex.off('query', listener);
    await daemon.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  for (const [shape, n] of statements) statements.set(shape, n / PROFILED_TRIGGERS);
  return { queries: queries / PROFILED_TRIGGERS, statements };
}

/**
 * `POST /hooks/{path_token}` on PostgreSQL: accepted triggers per second (valid HMAC, a fresh idempotency
 * key each, params and three device targets, so run admission does the same work as the `POST /runs`
 * figure) as a ratio to a bare Koa route doing one INSERT into the same database; and requests shed by an
 * exhausted global backstop per second as a ratio to `GET /health` of the same daemon. Interleaved rounds.
 */
export async function webhookTriggerBenchmark(line: (name: string, value: string) => void, options: WebhookTriggerOptions): Promise<void> {
  const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_hooks');
  if (!scratch) return line('webhook trigger: POST /hooks on PostgreSQL', `skipped (no server at ${options.postgresUrl})`);
  const { url: databaseUrl, db, idp, servers } = scratch;
  const dataDirs: string[] = [];
  const daemonEnv = async (extra: Record<string, string>) => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-bench-webhook-'));
    dataDirs.push(dir);
    return {
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_DATA_DIR: dir,
      SERVICE_SECRETS_ENCRYPTION_KEY: SECRETS_KEY,
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
      ...extra,
    };
  };
  try {
    // The accepting daemon: a backstop no figure reaches; it migrates the scratch database on start.
    const accepting = await startServer(
      [DAEMON],
      await freePort(),
      '/ready',
      await daemonEnv({ SERVICE_WEBHOOK_GLOBAL_INGRESS_PER_MINUTE: '100000000' }),
    );
    servers.push(accepting);
    await db.raw(
      'CREATE TABLE bench_scratch (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
    );
    const { flowId, deviceIds } = await seed(db);
    const token = await idp.mintAccessToken({ sub: 'bench-admin', username: 'bench-admin', realmRoles: [], expiresInSeconds: 3600 });
    const secret = await api(accepting.url, token, '/secrets', { name: 'bench-hook', values: { value: SIGNING_KEY } });
    const endpoint = await api(accepting.url, token, '/webhooks', {
      name: 'bench',
      flow_id: flowId,
      secret_id: secret.id,
      rate_limit_per_minute: 100_000,
      replay_window_seconds: 3600,
    });
    const hookPath = `/hooks/${endpoint.path_token!}`;
    // The shedding daemon: a backstop of one a minute, spent by the first request below.
    const shedding = await startServer(
      [DAEMON],
      await freePort(),
      '/ready',
      await daemonEnv({ SERVICE_WEBHOOK_GLOBAL_INGRESS_PER_MINUTE: '1' }),
    );
    servers.push(shedding);
    const bare = await startServer([BARE_INSERT], await freePort(), '/ready', { BENCH_DATABASE_URL: databaseUrl });
    servers.push(bare);
    const bareKoa = await startServer([BARE_KOA], await freePort(), '/runs/r1');
    servers.push(bareKoa);

    const body = JSON.stringify({ params: { change_id: 'CHG1234', mode: 'apply' }, related_targets: { routers: deviceIds } });
    const signed = signedHeaders(body);
    await fetch(`${shedding.url}${hookPath}`, { method: 'POST', headers: signed, body });
    // The baseline gets the accepted trigger's very request (signed, a fresh key each), so the ratio compares
    // the servers' work and not the load generator's, which shares this host's two cores. Shed requests
    // carry one fixed key: they are refused before it is read, and making a key per request costs the load
    // generator about as much as the daemon's whole answer.
    const keyed = { ...signed, 'x-idempotency-key': randomUUID() };
    const subjects: Subject[] = [
      { url: `${bare.url}/runs`, method: 'POST', headers: signed, body, freshKey: true, expect: 201, pid: bare.child.pid! },
      { url: `${accepting.url}${hookPath}`, method: 'POST', headers: signed, body, freshKey: true, expect: 202, pid: accepting.child.pid! },
      { url: `${shedding.url}/health`, method: 'GET', headers: {}, expect: 200, pid: shedding.child.pid! },
      { url: `${shedding.url}${hookPath}`, method: 'POST', headers: keyed, body, expect: 429, pid: shedding.child.pid! },
      // The same request to a path no route has: answered 404 at routing, before the trigger's code runs.
      { url: `${shedding.url}/hooks-nowhere`, method: 'POST', headers: keyed, body, expect: 404, pid: shedding.child.pid! },
      // What any Koa app pays for that POST against a GET: the shed figure's ceiling on this host.
      { url: `${bareKoa.url}/runs/r1`, method: 'GET', headers: {}, expect: 200, pid: bareKoa.child.pid! },
      { url: `${bareKoa.url}/runs/r1`, method: 'POST', headers: keyed, body, expect: 404, pid: bareKoa.child.pid! },
    ];
    for (const s of subjects) await perSecond(s, 1);
    const rates = subjects.map(() => [] as number[]);
    const splits = subjects.map(() => [] as CpuSplit[]);
    for (let round = 0; round < options.rounds; round += 1) {
      for (const [i, s] of subjects.entries()) rates[i]!.push(await perSecond(s, options.seconds, splits[i]));
    }
    const [insert, accepted, health, shed, unrouted, bareGet, barePost] = rates;
    line('bare Koa, one INSERT per request, PostgreSQL (req/s, median)', median(insert!).toFixed(0));
    line('svcd, POST /hooks accepted (HMAC, fresh key; 202/s, median)', median(accepted!).toFixed(0));
    line('ratio accepted trigger / bare INSERT (aim >= 0.6)', pairedRatio(accepted!, insert!).toFixed(2));
    line('svcd, GET /health (req/s, median)', median(health!).toFixed(0));
    line('svcd, POST /hooks shed by the global backstop (429/s, median)', median(shed!).toFixed(0));
    line('ratio shed trigger / GET /health (aim >= 0.9)', pairedRatio(shed!, health!).toFixed(2));
    line('svcd, the same signed POST answered 404 at routing (req/s, median)', median(unrouted!).toFixed(0));
    line('ratio shed trigger / same request 404 at routing', pairedRatio(shed!, unrouted!).toFixed(2));
    line('  ceiling: bare Koa, the same signed POST / a GET (404 / 200)', pairedRatio(barePost!, bareGet!).toFixed(2));

    if (process.env.BENCH_CPU_SPLIT) {
      const names = ['bare INSERT', 'accepted trigger', 'GET /health', 'shed trigger', '404 at routing', 'bare Koa GET', 'bare Koa POST'];
      for (const [i, name] of names.entries()) {
        const of = (part: keyof CpuSplit) => median(splits[i]!.map((split) => split[part])).toFixed(0);
        line(
          `  CPU per request, ${name} (µs: server / PostgreSQL / load generator)`,
          `${of('server')} / ${of('postgres')} / ${of('client')}`,
        );
      }
    }
    const runs = Number((await db('runs').count({ n: '*' }))[0]!.n);
    const deliveries = Number((await db('webhook_deliveries').where({ response_status: 202 }).count({ n: '*' }))[0]!.n);
    const others = Number((await db('webhook_deliveries').whereNot({ response_status: 202 }).count({ n: '*' }))[0]!.n);
    line(
      'accepted triggers: runs / accepted deliveries / other journal rows',
      `${runs} / ${deliveries} / ${others}${runs === deliveries && others === 0 ? '' : ' (MISMATCH)'}`,
    );

    await Promise.all(servers.splice(0).map((s) => s.stop()));
    const profile = await queriesPerTrigger(databaseUrl, hookPath, body);
    line('database statements per accepted trigger (BEGIN/COMMIT included)', profile.queries.toFixed(1));
    for (const [shape, n] of [...profile.statements].sort((a, b) => b[1] - a[1])) line(`  ${n.toFixed(1)} x`, shape);
  } finally {
    await scratch.close();
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
