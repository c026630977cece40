import { fileURLToPath } from 'node:url';
import { freePort, median, startServer } from './lib.js';
import { openScratchDatabase } from './scratch-database.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));

export interface DashboardStatsOptions {
  readonly postgresUrl: string;
  /** Runs seeded (1,000,000 by default). */
  readonly runs: number;
  readonly rounds: number;
}

/**
 * `GET /dashboard/stats` of one organization on a PostgreSQL database holding `runs` runs (seeded with one
 * INSERT … SELECT over generate_series: 10 organizations, 20 flows each, spread over 60 days, every
 * status), against a bare `SELECT count(*) FROM runs` on the same database, timed one at a time in
 * interleaved rounds. PostgreSQL only: seeding a million rows into embedded PGlite takes minutes, and the
 * figure is about the plans, which are PostgreSQL's.
 */
export async function dashboardStatsBenchmark(line: (name: string, value: string) => void, options: DashboardStatsOptions): Promise<void> {
  const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_dashboard');
  if (!scratch) return line('dashboard: GET /dashboard/stats on PostgreSQL', `skipped (no server at ${options.postgresUrl})`);
  const { url: databaseUrl, db, servers } = scratch;
  try {
    const daemon = await startServer([DAEMON], await freePort(), '/ready', {
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_AUTH_DISABLED: 'true',
      SERVICE_SCHEDULER_ENABLED: 'false',
      SERVICE_MAINTENANCE_TIMER_ENABLED: 'false',
    });
    servers.push(daemon);
    const seeded = performance.now();
    await db.raw(`INSERT INTO organizations (slug, name) SELECT 'bench-' || g, 'Bench ' || g FROM generate_series(0, 9) g`);
    await db.raw(
      `INSERT INTO flows (org_id, name, draft_json, latest_version)
       SELECT o.id, 'flow-' || g, '{"steps":[],"edges":[],"inputs":[],"target_roles":[]}'::jsonb, 1
         FROM organizations o CROSS JOIN generate_series(0, 19) g WHERE o.slug LIKE 'bench-%'`,
    );
    // The triggers on runs (notifications, the queue's NOTIFY) are per row: off for the seed, a bulk load's usual way.
    await db.raw('ALTER TABLE runs DISABLE TRIGGER USER');
    await db.raw(
      `WITH f AS (SELECT id, org_id, name, row_number() OVER (ORDER BY id) - 1 AS k FROM flows f WHERE f.org_id IN (SELECT id FROM organizations WHERE slug LIKE 'bench-%'))
       INSERT INTO runs (org_id, flow_id, flow_version, flow_name, name, status, trigger_source, workflow_id, created_at, finished_at)
       SELECT f.org_id, f.id, 1, f.name, 'run ' || g,
              (ARRAY['succeeded','succeeded','succeeded','failed','cancelled','succeeded','queued','running'])[1 + g % 8],
              'manual', 'bench-' || g, now() - (g::bigint * 5184000 / ?) * interval '1 second',
              CASE WHEN g % 8 < 6 THEN now() - (g::bigint * 5184000 / ?) * interval '1 second' + interval '30 seconds' END
         FROM generate_series(0, ? - 1) g JOIN f ON f.k = g % 200`,
      // Evenly over the 60 days (5,184,000 s), whatever the count.
      [options.runs, options.runs, options.runs],
    );
    await db.raw('ALTER TABLE runs ENABLE TRIGGER USER');
    await db.raw('VACUUM ANALYZE runs');
    line(`dashboard: seeded ${options.runs} runs, PostgreSQL (s)`, ((performance.now() - seeded) / 1000).toFixed(1));

    const headers = { 'x-org-id': 'bench-3' };
    const timed = async (work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    const route = (window: string) => async () => {
      const answer = await fetch(`${daemon.url}/dashboard/stats?window=${window}`, { headers });
      if (answer.status !== 200) throw new Error(`GET /dashboard/stats answered ${answer.status}: ${await answer.text()}`);
      await answer.arrayBuffer();
    };
    const bare = () => db.raw('SELECT count(*) FROM runs');
    const subjects = [
      { name: 'bare SELECT count(*) FROM runs', work: bare },
      { name: 'GET /dashboard/stats?window=24h', work: route('24h') },
      { name: 'GET /dashboard/stats?window=7d', work: route('7d') },
      { name: 'GET /dashboard/stats?window=30d', work: route('30d') },
    ];
    for (const s of subjects) await timed(s.work);
    const times = subjects.map(() => [] as number[]);
    for (let round = 0; round < Math.max(5, options.rounds * 3); round += 1) {
      for (const [i, s] of subjects.entries()) times[i]!.push(await timed(s.work));
    }
    const baseline = median(times[0]!);
    line('bare SELECT count(*) FROM runs, 1 database (ms, median)', baseline.toFixed(1));
    for (const [i, s] of subjects.entries()) {
      if (i === 0) continue;
      line(`${s.name} (ms, median)`, median(times[i]!).toFixed(1));
      line(`ratio ${s.name.replace('GET /dashboard/stats?', '')} / count(*) (aim <= 2)`, (median(times[i]!) / baseline).toFixed(2));
    }
  } finally {
    await scratch.close();
  }
}
