import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import knexFactory, { type Knex } from 'knex';
import { freePort, median, pairedRatio, startServer } from './lib.js';
import { openScratchDatabase } from './scratch-database.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const BARE_INSERT = fileURLToPath(new URL('./servers/bare-koa-insert.js', import.meta.url));

export interface RunAdmissionOptions {
  readonly postgresUrl: string;
  readonly seconds: number;
  readonly rounds: number;
}

interface Subject {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Created (201) answers per second of POST requests over loopback, bounded in connections and seconds. */
async function createdPerSecond(subject: Subject, seconds: number, warmUp = false): Promise<number> {
  const result = await autocannon({
    url: subject.url,
    method: 'POST',
    connections: 16,
    duration: seconds,
    pipelining: 1,
    headers: subject.headers,
    body: subject.body,
  });
  // A warm-up only fills pools and caches: a fresh database may not answer within its second.
  if (!warmUp && (result.non2xx > 0 || result['2xx'] === 0)) {
    throw new Error(
      `${subject.url}: ${result['2xx']} created, ${result.non2xx} refused, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return result.requests.average;
}

/**
 * What the database alone allows: work shaped like a steady admission (one statement writing two rows,
 * as the run with its audit entry; the membership and the flow are cached) per second, as a ratio to
 * single INSERTs, from 16 concurrent callers over the same pool size, without HTTP or the daemon.
 */
async function roundTripCeiling(databaseUrl: string, seconds: number): Promise<number> {
  const knex = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 10 } });
  const insert = `INSERT INTO bench_scratch (payload) VALUES ('{}') RETURNING id`;
  const rate = async (work: () => Promise<unknown>) => {
    let done = 0;
    const end = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (Date.now() < end) {
          await work();
          done += 1;
        }
      }),
    );
    return done / seconds;
  };
  try {
    const one = await rate(() => knex.raw(insert));
    const admission = await rate(() => knex.raw(`WITH a AS (${insert}) INSERT INTO bench_scratch (payload) SELECT '{}' FROM a`));
    return admission / one;
  } finally {
    await knex.destroy();
  }
}

/** An operator of one organization, a committed flow with inputs and a target role, and its devices. */
async function seed(knex: Knex): Promise<{ flowId: string; deviceIds: string[] }> {
  const [org] = await knex('organizations').insert({ slug: 'bench', name: 'Bench' }).returning('id');
  const orgId = (org as { id: string }).id;
  const [user] = await knex('users').insert({ sub: 'bench-operator', username: 'bench-operator' }).returning('id');
  await knex('org_memberships').insert({ user_id: (user as { id: string }).id, org_id: orgId, role: 'operator', source: 'manual' });
  const definition = {
    steps: [{ id: 'noop', handler: 'general.noop', config: {}, target_role: 'routers' }],
    edges: [],
    inputs: [
      { name: 'change_id', type: 'string', required: true, pattern: 'CHG[0-9]+' },
      { name: 'retries', type: 'integer', min: 0, max: 5, default: 2 },
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

/**
 * Runs created per second through `POST /runs` (operator JWT, membership check, params and three
 * device targets validated, run and `run.started` entry in one transaction) on PostgreSQL, as a ratio
 * to a bare Koa route doing one INSERT into a scratch table of the same database, interleaved rounds.
 */
export async function runAdmissionBenchmark(line: (name: string, value: string) => void, options: RunAdmissionOptions): Promise<void> {
  const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_runs');
  if (!scratch) return line('run admission: POST /runs on PostgreSQL', `skipped (no server at ${options.postgresUrl})`);
  const { url: databaseUrl, db, idp, servers } = scratch;
  try {
    // The daemon migrates the scratch database on its first start; the seed needs its tables.
    const daemon = await startServer([DAEMON], await freePort(), '/ready', {
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
    });
    servers.push(daemon);
    await db.raw(
      'CREATE TABLE bench_scratch (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
    );
    const { flowId, deviceIds } = await seed(db);
    const bare = await startServer([BARE_INSERT], await freePort(), '/ready', { BENCH_DATABASE_URL: databaseUrl });
    servers.push(bare);

    const token = await idp.mintAccessToken({
      sub: 'bench-operator',
      username: 'bench-operator',
      realmRoles: ['operator'],
      expiresInSeconds: 3600,
    });
    const body = JSON.stringify({ flow_id: flowId, params: { change_id: 'CHG1234', mode: 'apply' }, targets: { routers: deviceIds } });
    // The same request bytes to both: the figure compares the servers' work, not what the load generator sends.
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-org-id': 'bench' };
    const subjects: Subject[] = [
      { url: `${bare.url}/runs`, headers, body },
      { url: `${daemon.url}/runs`, headers, body },
    ];
    for (const s of subjects) await createdPerSecond(s, 2, true);
    const rates = subjects.map(() => [] as number[]);
    for (let round = 0; round < options.rounds; round += 1) {
      for (const [i, s] of subjects.entries()) rates[i]!.push(await createdPerSecond(s, options.seconds));
    }
    const [b, d] = rates;
    line('bare Koa, one INSERT per request, PostgreSQL (req/s, median)', median(b!).toFixed(0));
    line('svcd, POST /runs (runs created/s, median)', median(d!).toFixed(0));
    line('ratio POST /runs / bare INSERT (aim >= 0.4)', pairedRatio(d!, b!).toFixed(2));
    line(
      '  ceiling: one two-row statement / one INSERT on this database, no HTTP',
      (await roundTripCeiling(databaseUrl, options.seconds)).toFixed(2),
    );
  } finally {
    await scratch.close();
  }
}
