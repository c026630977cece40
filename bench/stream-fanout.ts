import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import { freePort, startServer } from './lib.js';
import { openScratchDatabase } from './scratch-database.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const WORKER_ID = 'bench-worker';
const SAMPLES_PER_ROUND = 300;

export interface StreamFanoutOptions {
  readonly postgresUrl: string;
  readonly rounds: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A run of the default organization, held by the bench's worker (attempt 1), as a claim would leave it. */
async function heldRun(db: Knex): Promise<string> {
  const org = (await db('organizations').where({ slug: 'default' }).first('id')) as { id: string };
  const definition = { steps: [], edges: [], inputs: [], target_roles: [] };
  const [flow] = (await db('flows')
    .insert({ org_id: org.id, name: 'bench-stream', draft_json: JSON.stringify(definition), draft_dirty: false, latest_version: 1 })
    .returning('id')) as { id: string }[];
  await db('flow_versions').insert({ flow_id: flow!.id, version: 1, definition_json: JSON.stringify(definition) });
  const [run] = (await db('runs')
    .insert({
      org_id: org.id,
      flow_id: flow!.id,
      flow_version: 1,
      flow_name: 'bench-stream',
      name: 'bench-stream',
      status: 'running',
      trigger_source: 'manual',
      workflow_id: `bench-stream-${Date.now()}`,
      params_json: '{}',
      targets_json: '{}',
      worker_id: WORKER_ID,
      attempt: 1,
      claimed_at: db.fn.now(),
      started_at: db.fn.now(),
      lease_expires_at: db.raw(`now() + interval '1 hour'`),
    })
    .returning('id')) as { id: string }[];
  return run!.id;
}

/** Reads the stream, noting when each event (by its `data.n`) arrived. */
function follow(url: string, arrived: Map<number, number>, onArrival: () => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`));
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          const n = (JSON.parse(data.slice(6)) as { data?: { n?: number } }).data?.n;
          if (typeof n === 'number') arrived.set(n, performance.now());
        }
        onArrival();
      });
      resolve(() => response.destroy());
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Stream fan-out: a worker's event batch (one event) posted to daemon A, to its SSE frame on a client
 * streaming the run from daemon B, both daemons on one PostgreSQL database (B hears of it by
 * LISTEN/NOTIFY; its poll is set far apart so it cannot be the path). One event at a time; p50 and p99
 * over every round, beside the POST's own answer time on A (the baseline: what the fan-out adds is the
 * difference).
 */
export async function streamFanoutBenchmark(line: (name: string, value: string) => void, options: StreamFanoutOptions): Promise<void> {
  const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_stream');
  if (!scratch) return line('stream fan-out: POST on A to SSE frame on B', `skipped (no server at ${options.postgresUrl})`);
  const { url: databaseUrl, db, servers } = scratch;
  try {
    const env = {
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_AUTH_DISABLED: 'true',
      SERVICE_SECRETS_ENCRYPTION_KEY: 'ab'.repeat(32),
      SERVICE_STREAM_POLL_SECONDS: '60',
    };
    // A migrates the scratch database; B starts on it after.
    const a = await startServer([DAEMON], await freePort(), '/ready', env);
    servers.push(a);
    const b = await startServer([DAEMON], await freePort(), '/ready', env);
    servers.push(b);
    const runId = await heldRun(db);

    const arrived = new Map<number, number>();
    let wake: (() => void) | undefined;
    const stop = await follow(`${b.url}/bff/runs/${runId}/events/stream`, arrived, () => wake?.());
    const post = (n: number) =>
      fetch(`${a.url}/internal/runs/${runId}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-worker-id': WORKER_ID, 'x-run-attempt': '1' },
        body: JSON.stringify({ events: [{ worker_seq: n, type: 'log', data: { level: 'info', message: 'bench', n } }] }),
      });
    const fanout: number[] = [];
    const answered: number[] = [];
    // What the fan-out adds to the commit: the frame's arrival after the POST's answer (negative when first).
    const added: number[] = [];
    let n = 0;
    for (let round = 0; round <= options.rounds; round += 1) {
      for (let i = 0; i < SAMPLES_PER_ROUND; i += 1) {
        n += 1;
        const sent = performance.now();
        const response = await post(n);
        const answer = performance.now();
        if (response.status !== 200) throw new Error(`POST events answered ${response.status}: ${await response.text()}`);
        while (!arrived.has(n)) await new Promise<void>((resolve) => (wake = resolve));
        // Round 0 warms pools, caches and the JIT; it is not counted.
        if (round === 0) continue;
        fanout.push(arrived.get(n)! - sent);
        answered.push(answer - sent);
        added.push(arrived.get(n)! - answer);
      }
    }
    stop();
    fanout.sort((x, y) => x - y);
    answered.sort((x, y) => x - y);
    added.sort((x, y) => x - y);
    line(`stream fan-out, POST on A to SSE frame on B, p50 (ms, ${fanout.length} events)`, percentile(fanout, 50).toFixed(2));
    line('stream fan-out, POST on A to SSE frame on B, p99 (ms)', `${percentile(fanout, 99).toFixed(2)} (aim < 100)`);
    line(
      "baseline: the POST's own answer on A, p50 / p99 (ms)",
      `${percentile(answered, 50).toFixed(2)} / ${percentile(answered, 99).toFixed(2)}`,
    );
    line(
      "added by the fan-out: frame on B after A's answer, p50 / p99 (ms)",
      `${percentile(added, 50).toFixed(2)} / ${percentile(added, 99).toFixed(2)}`,
    );
  } finally {
    await scratch.close();
  }
}
