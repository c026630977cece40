import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import { startDevIdp } from '../src/daemon/dev-idp/index.js';
import { artifactsBenchmark } from './artifacts.js';
import { filesBenchmark } from './files.js';
import { claimBenchmark } from './claim.js';
import { cliStartupBenchmark } from './cli-startup.js';
import { dashboardStatsBenchmark } from './dashboard-stats.js';
import { decisionBenchmark } from './decision.js';
import { loginSyncBenchmark } from './login-sync.js';
import { inventorySyncBenchmark } from './inventory-sync.js';
import { freePort, median, pairedRatio, requestsPerSecond, startServer, timeToReady } from './lib.js';
import { overrideMaps, overrideRows, seedOverrides, type OverrideRows } from './overrides.js';
import { readPathBenchmark } from './read-paths.js';
import { registryAuthorizeBenchmark } from './registry-authorize.js';
import { runAdmissionBenchmark } from './run-admission.js';
import { runEventsBenchmark } from './run-events.js';
import { schedulesBenchmark } from './schedules.js';
import { streamFanoutBenchmark } from './stream-fanout.js';
import { webhookTriggerBenchmark } from './webhook-trigger.js';

/**
 * Figures, not tests: each is printed as a ratio to a baseline measured in the same run, because these
 * machines are shared and absolute numbers move with the neighbours.
 */
const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const BARE = fileURLToPath(new URL('./servers/bare-koa.js', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
// More rounds steady the medians on a busy host (BENCH_ROUNDS), at the cost of time.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const POSTGRES_URL = process.env.SVC_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// Request logging off in every figure: the baseline does not log either.
const quietDaemon = { SERVICE_LOG_LEVEL: 'warn' };
// Asked for; the catalogue admits fewer valid rows (see overrides.ts), and the labels print the real count.
const OVERRIDES_WANTED = 1000;
const DECISIONS = 2_000_000;
// An organization-scoped viewer route whose handler answers a constant (186 bytes) with no I/O: the whole
// chain and a handler, as the unbuilt routes' 501 measured it before every route was built.
const NO_IO = '/approvals/node-defaults';

function line(name: string, value: string): void {
  process.stdout.write(`${name.padEnd(58)} ${value}\n`);
}

interface Subject {
  readonly name: string;
  readonly url: string;
  readonly status: number;
  readonly headers?: Record<string, string>;
}

/** Requests/s of each subject in every round, measured in interleaved rounds so drift hits them alike. */
async function interleaved(subjects: readonly Subject[]): Promise<number[][]> {
  for (const s of subjects) await requestsPerSecond(s.url, 1, s.status, s.headers);
  const rates = subjects.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, s] of subjects.entries()) rates[i]!.push(await requestsPerSecond(s.url, SECONDS, s.status, s.headers));
  }
  return rates;
}

/** A route whose handler does no I/O, in development mode: routing, the whole middleware chain, a small body. */
async function throughput(dataDir: string): Promise<void> {
  const bare = await startServer([BARE], await freePort(), '/runs/r1');
  const daemon = await startServer([DAEMON], await freePort(), '/ready', {
    ...quietDaemon,
    SERVICE_DATA_DIR: dataDir,
    SERVICE_AUTH_DISABLED: 'true',
  });
  const [b, d] = await interleaved([
    { name: 'bare', url: `${bare.url}/runs/r1`, status: 200 },
    { name: 'svcd', url: `${daemon.url}${NO_IO}`, status: 200 },
  ]);
  await Promise.all([bare.stop(), daemon.stop()]);
  line('bare Koa, one route (req/s, median)', median(b!).toFixed(0));
  line('svcd, catalogue route without I/O (req/s, median)', median(d!).toFixed(0));
  line('ratio svcd / bare Koa (aim >= 0.8)', pairedRatio(d!, b!).toFixed(2));
}

/**
 * JWT-authenticated requests to a route whose handler does no I/O (GET /approvals/node-defaults, viewer):
 * one token reused (verified-token cache warm), and a daemon with the cache off (RS256 verified each time).
 */
async function jwtThroughput(dataDir: string): Promise<void> {
  const idp = await startDevIdp();
  const token = await idp.mintAccessToken({ expiresInSeconds: 3600 });
  const env = { ...quietDaemon, SERVICE_DATA_DIR: dataDir, SERVICE_IDP_ISSUER: idp.issuer };
  const bare = await startServer([BARE], await freePort(), '/runs/r1');
  const warm = await startServer([DAEMON], await freePort(), '/ready', env);
  const cold = await startServer([DAEMON], await freePort(), '/ready', {
    ...env,
    SERVICE_TOKEN_CACHE_SIZE: '0',
    SERVICE_DATA_DIR: `${dataDir}-cold`,
  });
  const auth = { authorization: `Bearer ${token}` };
  try {
    const [b, w, c] = await interleaved([
      { name: 'bare', url: `${bare.url}/runs/r1`, status: 200 },
      { name: 'warm', url: `${warm.url}${NO_IO}`, status: 200, headers: auth },
      { name: 'cold', url: `${cold.url}${NO_IO}`, status: 200, headers: auth },
    ]);
    line('svcd, JWT, verified-token cache warm (req/s, median)', median(w!).toFixed(0));
    line('ratio warm JWT / bare Koa (aim >= 0.7)', pairedRatio(w!, b!).toFixed(2));
    line('svcd, JWT, RS256 verified every request (req/s, median)', median(c!).toFixed(0));
    line('ratio verified-each-time / warm (aim >= 0.35)', pairedRatio(c!, w!).toFixed(2));
  } finally {
    await Promise.all([bare.stop(), warm.stop(), cold.stop()]);
    await idp.stop();
    await rm(`${dataDir}-cold`, { recursive: true, force: true });
  }
}

/**
 * The whole middleware chain with the override tables filled. The route is platform-scoped and its
 * handler refuses a profile id that cannot exist (404) before any I/O, so no organization lookup and no
 * handler I/O hide the chain's own cost; a data directory of its own keeps every other figure on a
 * daemon without overrides.
 */
async function overrideThroughput(dataDir: string, rows: OverrideRows): Promise<void> {
  const dir = `${dataDir}-overrides`;
  const env = { ...quietDaemon, SERVICE_DATA_DIR: dir, SERVICE_AUTH_DISABLED: 'true' };
  const count = rows.actions.length + rows.routes.length;
  try {
    await timeToReady([DAEMON], env, '/ready'); // creates and migrates the directory
    await seedOverrides(dir, rows);
    const bare = await startServer([BARE], await freePort(), '/runs/r1');
    const daemon = await startServer([DAEMON], await freePort(), '/ready', env);
    try {
      await overridesLoaded(daemon.url, count);
      const [b, d] = await interleaved([
        { name: 'bare', url: `${bare.url}/runs/r1`, status: 200 },
        { name: 'svcd', url: `${daemon.url}/platform-sync/profiles/p1`, status: 404 },
      ]);
      line(`svcd, ${count} overrides, GET /platform-sync/profiles/p1 (req/s, median)`, median(d!).toFixed(0));
      line('ratio svcd with overrides / bare Koa (aim >= 0.75)', pairedRatio(d!, b!).toFixed(2));
    } finally {
      await Promise.all([bare.stop(), daemon.stop()]);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The daemon loads overrides just after /ready can answer; measuring before that would time no overrides. */
async function overridesLoaded(url: string, expected: number): Promise<void> {
  let loaded = 0;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const [actions, routes] = await Promise.all([
      fetch(`${url}/settings/permissions/actions`).then((r) => r.json() as Promise<{ actions: { override: string | null }[] }>),
      fetch(`${url}/settings/permissions`).then((r) => r.json() as Promise<{ routes: { route_override: string | null }[] }>),
    ]);
    loaded = actions.actions.filter((a) => a.override).length + routes.routes.filter((r) => r.route_override).length;
    if (loaded === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the daemon loaded ${loaded} of ${expected} overrides`);
}

/** In-process: route match + effective policy + decision, against a Map lookup loop of the same length. */
function decisionCost(rows: OverrideRows): void {
  const figures = decisionBenchmark(overrideMaps(rows), DECISIONS);
  const count = rows.actions.length + rows.routes.length;
  line(
    `one decision, ${count} overrides, ${figures.paths} paths (ns, median)`,
    `${figures.nsPerDecision.toFixed(0)} (aim < 2000; ${(figures.allowedShare * 100).toFixed(0)}% allowed)`,
  );
  line('one Map lookup, same loop (ns, median)', figures.nsPerMapLookup.toFixed(1));
  line('ratio decision / Map lookup', (figures.nsPerDecision / figures.nsPerMapLookup).toFixed(0));
}

async function startup(dataDir: string): Promise<void> {
  const baseline = median(await series(() => timeToReady([BARE], {}, '/runs/r1')));
  const pglite = median(await series(() => timeToReady([DAEMON], { ...quietDaemon, SERVICE_DATA_DIR: dataDir }, '/ready')));
  line('start-up to answering: bare Koa process (ms, median)', baseline.toFixed(0));
  line('start-up to ready: svcd on existing PGlite data (ms, median)', pglite.toFixed(0));
  line('ratio PGlite start-up / bare process', (pglite / baseline).toFixed(1));

  const admin = knexFactory({
    client: 'pg',
    connection: { connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 },
    pool: { min: 0, max: 1 },
  });
  const database = `svc_bench_${randomBytes(4).toString('hex')}`;
  try {
    await admin.raw(`CREATE DATABASE ${database}`);
  } catch {
    line('start-up to ready: svcd on PostgreSQL', `skipped (no server at ${POSTGRES_URL})`);
    await admin.destroy();
    return;
  }
  try {
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${database}`;
    const env = { ...quietDaemon, SERVICE_DATABASE_URL: url.toString() };
    await timeToReady([DAEMON], env, '/ready'); // first start migrates
    const postgres = median(await series(() => timeToReady([DAEMON], env, '/ready')));
    line('start-up to ready: svcd on migrated PostgreSQL (ms, median)', postgres.toFixed(0));
    line('ratio PostgreSQL start-up / bare process', (postgres / baseline).toFixed(1));
  } finally {
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
  }
}

async function series(run: () => Promise<number>): Promise<number[]> {
  const values: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) values.push(await run());
  return values;
}

// `node dist/bench/run.js [name…]` runs only the named figures (decision, throughput, overrides, jwt,
// login-sync, startup, cli, run-admission, webhook-trigger, read-paths, claim, stream, events, schedules, artifacts, inventory-sync,
// files, registry-authorize, dashboard); no name runs them all.
const only = process.argv.slice(2);
const wanted = (name: string) => only.length === 0 || only.includes(name);
const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
const rows = overrideRows(OVERRIDES_WANTED);
try {
  // In-process timing first, before autocannon has filled this process's heap.
  if (wanted('decision')) decisionCost(rows);
  // The first start creates the embedded database; every figure below uses the existing directory.
  if (['throughput', 'overrides', 'jwt', 'startup'].some(wanted))
    await timeToReady([DAEMON], { ...quietDaemon, SERVICE_DATA_DIR: dataDir }, '/ready');
  if (wanted('throughput')) await throughput(dataDir);
  if (wanted('overrides')) await overrideThroughput(dataDir, rows);
  if (wanted('jwt')) await jwtThroughput(dataDir);
  if (wanted('login-sync')) await loginSyncBenchmark(line);
  if (wanted('startup')) await startup(dataDir);
  if (wanted('cli')) await cliStartupBenchmark(line, { script: DAEMON, env: { ...quietDaemon, SERVICE_DATA_DIR: dataDir } });
  if (wanted('run-admission')) await runAdmissionBenchmark(line, { postgresUrl: POSTGRES_URL, seconds: SECONDS, rounds: ROUNDS });
  if (wanted('webhook-trigger')) await webhookTriggerBenchmark(line, { postgresUrl: POSTGRES_URL, seconds: SECONDS, rounds: ROUNDS });
  if (wanted('read-paths')) await readPathBenchmark(line, { postgresUrl: POSTGRES_URL, seconds: SECONDS, rounds: ROUNDS });
  if (wanted('claim')) await claimBenchmark(line, { postgresUrl: POSTGRES_URL, runs: Number(process.env.BENCH_CLAIM_RUNS ?? 200) });
  if (wanted('stream')) await streamFanoutBenchmark(line, { postgresUrl: POSTGRES_URL, rounds: ROUNDS });
  if (wanted('events')) await runEventsBenchmark(line, { postgresUrl: POSTGRES_URL, seconds: SECONDS, rounds: ROUNDS });
  if (wanted('schedules'))
    await schedulesBenchmark(line, {
      postgresUrl: POSTGRES_URL,
      schedules: Number(process.env.BENCH_SCHEDULES ?? 10_000),
      spreadSeconds: Number(process.env.BENCH_SCHEDULE_SPREAD_SECONDS ?? 60),
    });
  if (wanted('artifacts')) await artifactsBenchmark(line, { postgresUrl: POSTGRES_URL, rounds: ROUNDS });
  if (wanted('inventory-sync'))
    await inventorySyncBenchmark(line, {
      postgresUrl: POSTGRES_URL,
      devices: Number(process.env.BENCH_INVENTORY_DEVICES ?? 10_000),
      rounds: ROUNDS,
    });
  if (wanted('files')) await filesBenchmark(line, { postgresUrl: POSTGRES_URL, rounds: ROUNDS });
  if (wanted('dashboard'))
    await dashboardStatsBenchmark(line, {
      postgresUrl: POSTGRES_URL,
      runs: Number(process.env.BENCH_DASHBOARD_RUNS ?? 1_000_000),
      rounds: ROUNDS,
    });
  if (wanted('registry-authorize')) await registryAuthorizeBenchmark(line, { postgresUrl: POSTGRES_URL, seconds: SECONDS, rounds: ROUNDS });
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
