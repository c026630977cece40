import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { percentile, seedOperatorFlow } from './claim.js';
import { freePort, startServer } from './lib.js';
import { openScratchDatabase } from './scratch-database.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const BASELINE_RUNS = 200;
const INSERT_CHUNK = 1000;

export interface SchedulesOptions {
  readonly postgresUrl: string;
  /** How many enabled schedules are due. */
  readonly schedules: number;
  /** Over how many seconds of wall time their due times are spread (60: a real minute, no compression). */
  readonly spreadSeconds: number;
}

/**
 * The embedded scheduler on PostgreSQL: `schedules` enabled schedules whose due times are spread evenly
 * over `spreadSeconds` of real time, fired by one daemon's loop (no injected clock). Each fire's lateness
 * is its run's `created_at` (the admission statement's time) minus its due time; printed against the
 * admission's own latency in the same run, `POST /runs` round trips one at a time. The seed writes each
 * schedule's `next_fire_at` itself (a cron expression has minute resolution) with a yearly expression,
 * so no schedule fires twice within the figure.
 */
export async function schedulesBenchmark(line: (name: string, value: string) => void, options: SchedulesOptions): Promise<void> {
  const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_schedules');
  if (!scratch) return line('schedules: fire lateness on PostgreSQL', `skipped (no server at ${options.postgresUrl})`);
  const { url: databaseUrl, db, idp, servers } = scratch;
  try {
    const daemon = await startServer([DAEMON], await freePort(), '/ready', {
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
      SERVICE_SCHEDULER_ENABLED: 'true',
    });
    servers.push(daemon);
    const flowId = await seedOperatorFlow(db);
    const orgId = ((await db('organizations').where({ slug: 'bench' }).first('id')) as { id: string }).id;

    const token = await idp.mintAccessToken({ sub: 'bench-operator', username: 'bench-operator', realmRoles: [], expiresInSeconds: 3600 });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-org-id': 'bench' };
    const body = JSON.stringify({ flow_id: flowId });
    const admit = async () => {
      const sent = performance.now();
      const response = await fetch(`${daemon.url}/runs`, { method: 'POST', headers, body });
      if (response.status !== 201) throw new Error(`POST /runs answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
      return performance.now() - sent;
    };
    for (let i = 0; i < 20; i += 1) await admit();
    const roundTrips: number[] = [];
    for (let i = 0; i < BASELINE_RUNS; i += 1) roundTrips.push(await admit());

    // Due from a few seconds on, so the seed is in before the first one.
    const start = Date.now() + 5000 + options.schedules / 10;
    const step = (options.spreadSeconds * 1000) / options.schedules;
    for (let from = 0; from < options.schedules; from += INSERT_CHUNK) {
      const rows = [];
      for (let i = from; i < Math.min(options.schedules, from + INSERT_CHUNK); i += 1) {
        rows.push({
          org_id: orgId,
          flow_id: flowId,
          name: `bench-${i}`,
          cron: '0 0 1 1 *',
          timezone: 'UTC',
          next_fire_at: new Date(start + Math.floor(i * step)),
        });
      }
      await db('schedules').insert(rows);
    }
    const seededBy = Date.now();
    if (seededBy > start) throw new Error(`seeding ended ${seededBy - start} ms after the first due time`);

    const deadline = start + options.spreadSeconds * 1000 + 30_000;
    let fired = 0;
    for (;;) {
      await sleep(1000);
      fired = Number(((await db('schedule_fires').count({ n: '*' })) as { n: string }[])[0]!.n);
      if (fired >= options.schedules || Date.now() > deadline) break;
    }
    const late = (
      (await db.raw(
        `SELECT EXTRACT(EPOCH FROM (r.created_at - f.due_at)) * 1000 AS ms FROM schedule_fires f JOIN runs r ON r.id = f.run_id`,
      )) as { rows: { ms: string }[] }
    ).rows.map((row) => Number(row.ms));
    const ms = (value: number) => value.toFixed(1);
    line(
      `baseline: POST /runs round trip, ${BASELINE_RUNS} runs one at a time (ms, p50 / p99)`,
      `${ms(percentile(roundTrips, 50))} / ${ms(percentile(roundTrips, 99))}`,
    );
    line(`schedules due over ${options.spreadSeconds} s, fired by the loop`, `${late.length} of ${options.schedules}`);
    line(
      'schedule fire lateness: run written - due time (ms, p50 / p99 / max)',
      `${ms(percentile(late, 50))} / ${ms(percentile(late, 99))} / ${ms(Math.max(...late))} (aim p99 < 1000)`,
    );
    line('ratio fire lateness p99 / admission round trip p99', (percentile(late, 99) / percentile(roundTrips, 99)).toFixed(2));
  } finally {
    await scratch.close();
  }
}
