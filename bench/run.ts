import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import { startDevIdp } from '../src/daemon/dev-idp/index.js';
import { freePort, median, requestsPerSecond, startServer, timeToReady } from './lib.js';

/**
 * Figures, not tests: each is printed as a ratio to a baseline measured in the same run, because these
 * machines are shared and absolute numbers move with the neighbours.
 */
const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const BARE = fileURLToPath(new URL('./servers/bare-koa.js', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = 3;
const POSTGRES_URL = process.env.SVC_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// Request logging off in every figure: the baseline does not log either.
const quietDaemon = { SERVICE_LOG_LEVEL: 'warn' };

function line(name: string, value: string): void {
  process.stdout.write(`${name.padEnd(58)} ${value}\n`);
}

interface Subject {
  readonly name: string;
  readonly url: string;
  readonly status: number;
  readonly headers?: Record<string, string>;
}

/** Median requests/s of each subject, measured in interleaved rounds so drift hits them alike. */
async function interleaved(subjects: readonly Subject[]): Promise<number[]> {
  for (const s of subjects) await requestsPerSecond(s.url, 1, s.status, s.headers);
  const rates = subjects.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, s] of subjects.entries()) rates[i]!.push(await requestsPerSecond(s.url, SECONDS, s.status, s.headers));
  }
  return rates.map(median);
}

/** The route answering 501 in development mode: routing, the whole middleware chain, the problem body. */
async function throughput(dataDir: string): Promise<void> {
  const bare = await startServer([BARE], await freePort(), '/runs/r1');
  const daemon = await startServer([DAEMON], await freePort(), '/ready', { ...quietDaemon, SERVICE_DATA_DIR: dataDir, SERVICE_AUTH_DISABLED: 'true' });
  const [b, d] = await interleaved([
    { name: 'bare', url: `${bare.url}/runs/r1`, status: 200 },
    { name: 'svcd', url: `${daemon.url}/runs/r1`, status: 501 },
  ]);
  await Promise.all([bare.stop(), daemon.stop()]);
  line('bare Koa, one route (req/s, median)', b!.toFixed(0));
  line('svcd, catalogue route answering 501 (req/s, median)', d!.toFixed(0));
  line('ratio svcd / bare Koa (aim >= 0.8)', (d! / b!).toFixed(2));
}

/**
 * JWT-authenticated requests to a route whose handler does no I/O (GET /runs/{run_id}, viewer, 501):
 * one token reused (verified-token cache warm), and a daemon with the cache off (RS256 verified each time).
 */
async function jwtThroughput(dataDir: string): Promise<void> {
  const idp = await startDevIdp();
  const token = await idp.mintAccessToken({ expiresInSeconds: 3600 });
  const env = { ...quietDaemon, SERVICE_DATA_DIR: dataDir, SERVICE_IDP_ISSUER: idp.issuer };
  const bare = await startServer([BARE], await freePort(), '/runs/r1');
  const warm = await startServer([DAEMON], await freePort(), '/ready', env);
  const cold = await startServer([DAEMON], await freePort(), '/ready', { ...env, SERVICE_TOKEN_CACHE_SIZE: '0', SERVICE_DATA_DIR: `${dataDir}-cold` });
  const auth = { authorization: `Bearer ${token}` };
  try {
    const [b, w, c] = await interleaved([
      { name: 'bare', url: `${bare.url}/runs/r1`, status: 200 },
      { name: 'warm', url: `${warm.url}/runs/r1`, status: 501, headers: auth },
      { name: 'cold', url: `${cold.url}/runs/r1`, status: 501, headers: auth },
    ]);
    line('svcd, JWT, verified-token cache warm (req/s, median)', w!.toFixed(0));
    line('ratio warm JWT / bare Koa (aim >= 0.7)', (w! / b!).toFixed(2));
    line('svcd, JWT, RS256 verified every request (req/s, median)', c!.toFixed(0));
    line('ratio verified-each-time / warm (aim >= 0.35)', (c! / w!).toFixed(2));
  } finally {
    await Promise.all([bare.stop(), warm.stop(), cold.stop()]);
    await idp.stop();
    await rm(`${dataDir}-cold`, { recursive: true, force: true });
  }
}

async function startup(dataDir: string): Promise<void> {
  const baseline = median(await series(() => timeToReady([BARE], {}, '/runs/r1')));
  const pglite = median(await series(() => timeToReady([DAEMON], { ...quietDaemon, SERVICE_DATA_DIR: dataDir }, '/ready')));
  line('start-up to answering: bare Koa process (ms, median)', baseline.toFixed(0));
  line('start-up to ready: svcd on existing PGlite data (ms, median)', pglite.toFixed(0));
  line('ratio PGlite start-up / bare process', (pglite / baseline).toFixed(1));

  const admin = knexFactory({ client: 'pg', connection: { connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 }, pool: { min: 0, max: 1 } });
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

const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
try {
  // The first start creates the embedded database; every figure below uses the existing directory.
  await timeToReady([DAEMON], { ...quietDaemon, SERVICE_DATA_DIR: dataDir }, '/ready');
  await throughput(dataDir);
  await jwtThroughput(dataDir);
  await startup(dataDir);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
