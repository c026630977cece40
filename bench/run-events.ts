import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { freePort, median, pairedRatio, startServer } from './lib.js';
import { EventBatchRepo } from '../src/daemon/domains/run-callbacks/event-batch-repo.js';
import { openScratchDatabase } from './scratch-database.js';

const DAEMON = fileURLToPath(new URL('../src/daemon/main.js', import.meta.url));
const BARE_EVENTS = fileURLToPath(new URL('./servers/bare-koa-events.js', import.meta.url));
const TOKEN = 'bench-internal-token-0123456789abcdef';
const BATCH = 50;
/** Concurrent senders, each with a run of its own (a worker posts one batch at a time per run). */
const SENDERS = 8;

export interface RunEventsOptions {
  readonly postgresUrl: string;
  readonly seconds: number;
  readonly rounds: number;
}

/** A batch as a worker sends it: `BATCH` log lines from `from`. */
function batch(from: number): { worker_seq: number; type: string; data: { level: string; message: string } }[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    worker_seq: from + i,
    type: 'log',
    data: { level: 'info', message: `step noop: line ${from + i} of the router's answer` },
  }));
}

/** Events/s written by `SENDERS` loops, each sending `send(sender, fromSeq)` until the time is up. */
async function eventsPerSecond(seconds: number, send: (sender: number, from: number) => Promise<void>, next: number[]): Promise<number> {
  let events = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, sender) => {
      while (Date.now() < end) {
        await send(sender, next[sender]!);
        next[sender]! += BATCH;
        events += BATCH;
      }
    }),
  );
  return events / seconds;
}

/** An organization, a flow and `SENDERS` runs held by worker `bench-w` in attempt 1, written as the claim would leave them. */
export async function seedHeldRuns(db: Knex): Promise<string[]> {
  const [org] = await db('organizations').insert({ slug: 'bench', name: 'Bench' }).returning('id');
  const orgId = (org as { id: string }).id;
  const definition = { steps: [], edges: [], inputs: [], target_roles: [] };
  const [flow] = await db('flows')
    .insert({ org_id: orgId, name: 'bench', draft_json: JSON.stringify(definition), draft_dirty: false, latest_version: 1 })
    .returning('id');
  const flowId = (flow as { id: string }).id;
  await db('flow_versions').insert({ flow_id: flowId, version: 1, definition_json: JSON.stringify(definition) });
  const ids = Array.from({ length: SENDERS }, () => randomUUID());
  await db('runs').insert(
    ids.map((id) => ({
      id,
      org_id: orgId,
      flow_id: flowId,
      flow_version: 1,
      flow_name: 'bench',
      name: 'bench',
      status: 'running',
      trigger_source: 'manual',
      workflow_id: `run-${id}`,
      worker_id: 'bench-w',
      attempt: 1,
      started_at: db.fn.now(),
      claimed_at: db.fn.now(),
      lease_expires_at: db.raw(`now() + interval '1 day'`),
    })),
  );
  return ids;
}

/**
 * Event ingestion: events/s accepted through `POST /internal/runs/{id}/events` in batches of 50 (worker
 * token, fencing, validation, dedup, gap-free numbering, NOTIFY) against a bare Koa route that writes the
 * same request's events with one multi-row INSERT into a scratch table shaped as `run_events` (its
 * primary key and unique index) of the same database: the same request bytes to both, the same number of
 * concurrent senders, interleaved rounds. Beside it, the database alone: the daemon's batch statement
 * against that INSERT, sent straight from this process (no HTTP).
 */
export async function runEventsBenchmark(line: (name: string, value: string) => void, options: RunEventsOptions): Promise<void> {
  const scratch = await openScratchDatabase(options.postgresUrl, 'svc_bench_events');
  if (!scratch) return line('event ingestion: POST /internal/runs/{id}/events', `skipped (no server at ${options.postgresUrl})`);
  const { url: databaseUrl, db, servers } = scratch;
  const direct = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 10 } });
  try {
    const daemon = await startServer([DAEMON], await freePort(), '/ready', {
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_INTERNAL_API_TOKEN: TOKEN,
    });
    servers.push(daemon);
    await db.raw('CREATE TABLE bench_events (LIKE run_events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)');
    const runs = await seedHeldRuns(db);
    const bare = await startServer([BARE_EVENTS], await freePort(), '/ready', { BENCH_DATABASE_URL: databaseUrl });
    servers.push(bare);
    const headers = { 'content-type': 'application/json', 'x-internal-token': TOKEN, 'x-worker-id': 'bench-w', 'x-run-attempt': '1' };

    const poster = (base: string) => async (sender: number, from: number) => {
      const response = await fetch(`${base}/internal/runs/${runs[sender]}/events`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ events: batch(from) }),
      });
      const answer = (await response.json()) as { accepted?: number };
      if (response.status !== 200 || answer.accepted !== BATCH) throw new Error(`${base}: ${response.status} ${JSON.stringify(answer)}`);
    };
    const viaDaemon = poster(daemon.url);
    const viaBare = poster(bare.url);
    const daemonNext = runs.map(() => 1);
    // The bare route keys rows by worker_seq alone: its own range, apart from the direct INSERTs below.
    const bareNext = runs.map(() => 1);
    await eventsPerSecond(1, viaDaemon, daemonNext);
    await eventsPerSecond(1, viaBare, bareNext);
    const d: number[] = [];
    const b: number[] = [];
    for (let round = 0; round < options.rounds; round += 1) {
      b.push(await eventsPerSecond(options.seconds, viaBare, bareNext));
      d.push(await eventsPerSecond(options.seconds, viaDaemon, daemonNext));
    }
    line(`bare Koa, one multi-row INSERT of ${BATCH} events, PostgreSQL (events/s, median)`, median(b).toFixed(0));
    line(`svcd, POST /internal/runs/{id}/events, ${BATCH} a batch (events/s, median)`, median(d).toFixed(0));
    line('ratio events endpoint / bare INSERT route (aim >= 0.5)', pairedRatio(d, b).toFixed(2));
    line(
      '  database alone: the batch statement / one multi-row INSERT, no HTTP',
      (await ceiling(direct, runs, options.seconds)).toFixed(2),
    );
  } finally {
    await direct.destroy();
    await scratch.close();
  }
}

/**
 * The daemon's batch statement (`EventBatchRepo.appendAtOnce`, its NOTIFY after) against the bare
 * multi-row INSERT, each from `SENDERS` callers straight to the database: what the database allows.
 */
async function ceiling(knex: Knex, runs: readonly string[], seconds: number): Promise<number> {
  const repo = new EventBatchRepo(knex);
  const holder = { workerId: 'bench-w', attempt: 1 };
  const statement = async (sender: number, from: number) => {
    const write = await repo.appendAtOnce(runs[sender]!, holder, JSON.stringify(batch(from)));
    if (write?.accepted !== BATCH) throw new Error(`batch statement: ${JSON.stringify(write)}`);
    await repo.notifyCommitted(runs[sender]!, write.lastSeq);
  };
  const insert = async (sender: number, from: number) => {
    await knex('bench_events').insert(
      batch(from).map((e, i) => ({
        run_id: runs[sender],
        seq: from + i,
        type: e.type,
        data: JSON.stringify(e.data),
        attempt: 1,
        worker_id: 'bench-w',
        worker_seq: e.worker_seq,
      })),
    );
  };
  // Far past what the routes used, so neither meets a row of theirs.
  const statementNext = runs.map(() => 1_000_000_000);
  const insertNext = runs.map(() => 1_000_000_000);
  const s = await eventsPerSecond(seconds, statement, statementNext);
  const i = await eventsPerSecond(seconds, insert, insertNext);
  return s / i;
}
