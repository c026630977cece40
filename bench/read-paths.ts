import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { cpuMeter, freePort, median, pairedRatio, requestsPerSecond, startServer } from './lib.js';
import { openScratchDatabase } from './scratch-database.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const BARE_SELECT = fileURLToPath(new URL('./servers/bare-koa-select.js', import.meta.url));
/** More than a page, so the list has a total beyond what it answers. */
const ROWS = 60;

export interface ReadPathOptions {
  readonly postgresUrl: string;
  readonly seconds: number;
  readonly rounds: number;
}

/** A viewer of one organization, its runs (params, targets, trigger details as admission writes them) and devices. */
async function seed(knex: Knex): Promise<void> {
  const [org] = await knex('organizations').insert({ slug: 'bench', name: 'Bench' }).returning('id');
  const orgId = (org as { id: string }).id;
  const [user] = await knex('users').insert({ sub: 'bench-viewer', username: 'bench-viewer' }).returning('id');
  await knex('org_memberships').insert({ user_id: (user as { id: string }).id, org_id: orgId, role: 'viewer', source: 'manual' });
  const devices = await knex('devices')
    .insert(
      Array.from({ length: ROWS }, (_, i) => ({
        org_id: orgId,
        name: `router-${String(i).padStart(3, '0')}`,
        hostname: `router-${i}.bench.example`,
        platform: 'iosxr',
        role: 'edge',
        serial: `SN${100000 + i}`,
        tags: JSON.stringify(['bench', `rack-${i % 4}`]),
        attributes_json: JSON.stringify({ asn: 64512 + i, mgmt: { vrf: 'mgmt', address: `10.0.${i}.1` } }),
        overlay_json: JSON.stringify(i % 3 === 0 ? { maintenance: true } : {}),
        created_by: 'bench-viewer',
        updated_by: 'bench-viewer',
      })),
    )
    .returning('id');
  const ids = (devices as { id: string }[]).map((d) => d.id);
  await knex('runs').insert(
    Array.from({ length: ROWS }, (_, i) => ({
      org_id: orgId,
      flow_version: 1,
      flow_name: 'bench',
      name: `bench #${i}`,
      status: i % 2 ? 'succeeded' : 'queued',
      params_json: JSON.stringify({ change_id: `CHG${1000 + i}`, retries: 2, mode: 'apply' }),
      targets_json: JSON.stringify({ routers: ids.slice(i % 50, (i % 50) + 3) }),
      trigger_source: 'manual',
      trigger_details_json: JSON.stringify({}),
      workflow_id: `bench-${i}-${randomBytes(4).toString('hex')}`,
      created_by: 'bench-viewer',
      updated_by: 'bench-viewer',
      created_at: new Date(Date.now() - (ROWS - i) * 1000),
    })),
  );
}

/**
 * The lists a browser app calls most, on PostgreSQL with a viewer's JWT (verified-token cache and
 * membership warm): `GET /runs?limit=50` and `GET /devices?limit=50` of an organization holding 60 of
 * each, as ratios to a bare Koa route doing one SELECT of 50 rows of the same table and columns,
 * interleaved rounds.
 */
export async function readPathBenchmark(line: (name: string, value: string) => void, options: ReadPathOptions): Promise<void> {
  const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_reads');
  if (!scratch) return line('read paths: GET /runs, GET /devices on PostgreSQL', `skipped (no server at ${options.postgresUrl})`);
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
    await seed(db);
    const bare = await startServer([BARE_SELECT], await freePort(), '/ready', { BENCH_DATABASE_URL: databaseUrl });
    servers.push(bare);
    const token = await idp.mintAccessToken({ sub: 'bench-viewer', username: 'bench-viewer', realmRoles: [], expiresInSeconds: 3600 });
    // The same request headers to both: the figure compares the servers' work, not what the load generator sends.
    const headers = { authorization: `Bearer ${token}`, 'x-org-id': 'bench' };
    const subjects = [
      { name: 'bare SELECT of runs', url: `${bare.url}/runs`, headers, pid: bare.child.pid! },
      { name: 'GET /runs', url: `${daemon.url}/runs?limit=50`, headers, pid: daemon.child.pid! },
      { name: 'bare SELECT of devices', url: `${bare.url}/devices`, headers, pid: bare.child.pid! },
      { name: 'GET /devices', url: `${daemon.url}/devices?limit=50`, headers, pid: daemon.child.pid! },
    ];
    // One request each first, however long a busy host takes: the token, membership and organization
    // caches filled, so the short warm-up below has answers to count.
    for (const s of subjects) {
      const answer = await fetch(s.url, { headers: s.headers });
      if (answer.status !== 200) throw new Error(`${s.url}: ${answer.status} ${await answer.text()}`);
    }
    for (const s of subjects) await requestsPerSecond(s.url, 1, 200, s.headers);
    const rates = subjects.map(() => [] as number[]);
    for (let round = 0; round < options.rounds; round += 1) {
      for (const [i, s] of subjects.entries()) rates[i]!.push(await requestsPerSecond(s.url, options.seconds, 200, s.headers));
    }
    const [bareRuns, runs, bareDevices, devices] = rates;
    line('bare Koa, one SELECT of 50 runs, PostgreSQL (req/s, median)', median(bareRuns!).toFixed(0));
    line('svcd, GET /runs?limit=50 (req/s, median)', median(runs!).toFixed(0));
    line('ratio GET /runs / bare SELECT (aim >= 0.6)', pairedRatio(runs!, bareRuns!).toFixed(2));
    line('bare Koa, one SELECT of 50 devices, PostgreSQL (req/s, median)', median(bareDevices!).toFixed(0));
    line('svcd, GET /devices?limit=50 (req/s, median)', median(devices!).toFixed(0));
    line('ratio GET /devices / bare SELECT (aim >= 0.6)', pairedRatio(devices!, bareDevices!).toFixed(2));
    // Where the time goes, for the docs (BENCH_CPU_SPLIT=1): CPU per answer of the server and of PostgreSQL.
    if (process.env.BENCH_CPU_SPLIT) {
      for (const s of subjects) {
        const meter = cpuMeter(s.pid);
        const rate = await requestsPerSecond(s.url, options.seconds, 200, s.headers);
        const split = meter(rate * options.seconds);
        line(`  CPU per answer, ${s.name} (µs: server, PostgreSQL)`, `${split.server.toFixed(0)}, ${split.postgres.toFixed(0)}`);
      }
    }
  } finally {
    await scratch.close();
  }
}
