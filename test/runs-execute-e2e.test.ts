import { spawn, type ChildProcess } from 'node:child_process';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { BACKEND } from './helpers/backend.js';
import { startTestDaemon, startTestDaemonOn, type TestDaemon } from './helpers/daemon.js';
import { admitRun, newTicket, recordedSeqs, seedEventsWorld, streamUrl, type EventsWorld } from './helpers/run-events-fixtures.js';
import { seedFlow } from './helpers/runs-fixtures.js';
import { REPO_ROOT } from './helpers/spawn.js';
import { SseClient } from './helpers/sse-client.js';

const TOKEN = 'e2e-internal-token-0123456789-abcdefghij';

function flow(steps: { id: string; handler: string; config?: Record<string, unknown> }[]): FlowDefinition {
  return {
    steps: steps.map((s) => ({ config: {}, ...s })),
    edges: steps.slice(1).map((s, i) => ({ from: steps[i]!.id, to: s.id })),
    inputs: [],
    target_roles: [],
  } as unknown as FlowDefinition;
}

const QUICK = flow([
  { id: 'first', handler: 'general.noop' },
  { id: 'wait', handler: 'general.sleep', config: { seconds: 1 } },
  { id: 'last', handler: 'general.noop' },
]);
const LONG = flow([{ id: 'wait', handler: 'general.sleep', config: { seconds: 120 } }]);
const PAUSABLE = flow([
  { id: 'first', handler: 'general.sleep', config: { seconds: 2 } },
  { id: 'second', handler: 'general.noop' },
]);

/** `svcd worker` as its own process, as a deployment runs it, so it can be killed outright. */
function startWorker(serverUrl: string, id: string, capacity: number): ChildProcess {
  return spawn(process.execPath, ['bin/svcd', 'worker'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SERVICE_SERVER_URL: serverUrl,
      SERVICE_INTERNAL_API_TOKEN: TOKEN,
      SERVICE_WORKER_ID: id,
      SERVICE_WORKER_CAPACITY: String(capacity),
      SERVICE_LOG_LEVEL: 'silent',
    },
    stdio: 'ignore',
  });
}

async function stopWorker(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** Polls the database until `done` holds (each run moves on its own; the test only waits for the outcome). */
async function until(what: string, done: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface RunRow {
  id: string;
  status: string;
  attempt: number;
  worker_id: string | null;
  event_seq: string;
  error_json: { code?: string } | null;
}

const runRow = async (knex: Knex, id: string): Promise<RunRow> => (await knex('runs').where({ id }).first()) as RunRow;
const stepRuns = (knex: Knex, runId: string) =>
  knex('step_runs').where({ run_id: runId }).orderBy('created_at') as Promise<{ step_id: string; status: string; attempt: number }[]>;

/**
 * Two daemons on one PostgreSQL database and real `svcd worker` processes: runs are claimed and run
 * exactly once, a killed worker's run is reaped as the rule says, cancel and pause reach the worker, and a
 * client streaming from daemon B follows what a worker reports to daemon A through a reconnection.
 * PostgreSQL only: two daemons cannot share PGlite's directory (test/worker-*.test.ts run one daemon and
 * one worker on PGlite).
 */
describe.skipIf(BACKEND !== 'postgres')('runs execute across two daemons and their workers', () => {
  let idp: DevIdp;
  let a: TestDaemon;
  let b: TestDaemon;
  let world: EventsWorld;
  const flows: Record<string, string> = {};
  const workers: ChildProcess[] = [];
  const knex = () => a.services.db.knex;

  beforeAll(async () => {
    idp = await startDevIdp();
    const env = {
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
      SERVICE_INTERNAL_API_TOKEN: TOKEN,
      SERVICE_SECRETS_ENCRYPTION_KEY: 'cd'.repeat(32),
      SERVICE_RUN_LEASE_SECONDS: '3',
      SERVICE_RUN_REAPER_INTERVAL_SECONDS: '1',
    };
    a = await startTestDaemon(env);
    b = await startTestDaemonOn(a.location, env);
    world = await seedEventsWorld(knex(), idp);
    const org = (await knex()('organizations').where({ slug: 'acme' }).first('id')) as { id: string };
    for (const [name, definition] of Object.entries({ quick: QUICK, long: LONG, pausable: PAUSABLE }))
      flows[name] = await seedFlow(knex(), org.id, { name, versions: [definition] });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => stopWorker(w, 'SIGKILL')));
    await b?.close();
    await a?.close();
    await idp?.stop();
  });

  const start = (daemon: TestDaemon, name: string) => admitRun(daemon.url, world.as.opal, 'acme', flows[name]!);
  const control = (daemon: TestDaemon, runId: string, command: string) =>
    fetch(`${daemon.url}/runs/${runId}/${command}`, { method: 'POST', headers: { authorization: world.as.opal, 'x-org-id': 'acme' } });

  it('a client on daemon B follows a run a worker reports to daemon A, through a reconnection, with no gap and no duplicate', async () => {
    const only = startWorker(a.url, 'worker-a-only', 2);
    try {
      const runId = await start(a, 'quick');
      const open = async (position?: number) => {
        const ticket = await newTicket(a.url, world.as.vic);
        const query = { ticket, org: 'acme', ...(position === undefined ? {} : { last_event_id: position }) };
        const opened = await SseClient.open(streamUrl(b.url, runId, query));
        expect(opened.status).toBe(200);
        return opened.client!;
      };
      const first = await open();
      await first.until(() => first.events.length >= 2, 30_000);
      first.close();
      const second = await open(first.events.at(-1)!.seq);
      expect((await second.ended).clean).toBe(true);
      expect(second.frames.at(-1)).toMatchObject({ event: 'end', data: '{"status":"succeeded"}' });
      expect([...first.events, ...second.events].map((e) => e.seq)).toEqual(await recordedSeqs(knex(), runId));
      expect((await runRow(knex(), runId)).worker_id).toBe('worker-a-only');
    } finally {
      await stopWorker(only);
    }
  });

  it('a worker killed mid-step loses its run to the reaper: failed with worker_lost, audited, not run again', async () => {
    const doomed = startWorker(b.url, 'worker-doomed', 1);
    workers.push(doomed);
    const runId = await start(a, 'long');
    await until('the step to start', async () => (await stepRuns(knex(), runId)).some((s) => s.status === 'running'));
    await stopWorker(doomed, 'SIGKILL');
    await until('the reaper', async () => (await runRow(knex(), runId)).status === 'failed');
    const run = await runRow(knex(), runId);
    expect(run.error_json?.code).toBe('worker_lost');
    expect(run.attempt).toBe(1);
    const audit = await knex()('audit_logs').where({ resource_id: runId, event_type: 'run.failed' });
    expect(audit).toHaveLength(1);
  });

  describe('with two workers, one on each daemon', () => {
    beforeAll(() => {
      workers.push(startWorker(a.url, 'worker-a', 8), startWorker(b.url, 'worker-b', 8));
    });

    it('50 runs admitted through both daemons each run exactly once, every step once, events gap-free', async () => {
      const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => start(i % 2 === 0 ? a : b, 'quick')));
      await until(
        '50 finished runs',
        async () => (await knex()('runs').whereIn('id', ids).whereIn('status', ['succeeded', 'failed', 'cancelled'])).length === 50,
        120_000,
      );
      const runs = (await knex()('runs').whereIn('id', ids)) as RunRow[];
      expect(runs.map((r) => r.status)).toEqual(Array(50).fill('succeeded'));
      expect(runs.map((r) => r.attempt)).toEqual(Array(50).fill(1));
      expect(new Set(runs.map((r) => r.worker_id))).toEqual(new Set(['worker-a', 'worker-b']));
      const claims = await knex()('run_events')
        .whereIn('run_id', ids)
        .where({ type: 'run.status' })
        .whereRaw(`data->>'to' = 'running'`)
        .count<{ count: string }[]>('* as count');
      expect(Number(claims[0]!.count)).toBe(50);
      const steps = (await knex()('step_runs').whereIn('run_id', ids)) as { run_id: string; step_id: string; status: string }[];
      expect(steps).toHaveLength(150);
      expect(steps.every((s) => s.status === 'succeeded')).toBe(true);
      for (const run of runs) {
        const seqs = await recordedSeqs(knex(), run.id);
        expect(seqs).toEqual(Array.from({ length: Number(run.event_seq) }, (_, i) => i + 1));
      }
    });

    it('a cancel through daemon B reaches the worker holding the run: it stops the step it was in', async () => {
      const runId = await start(a, 'long');
      await until('the step to start', async () => (await stepRuns(knex(), runId)).some((s) => s.status === 'running'));
      expect((await control(b, runId, 'cancel')).status).toBe(200);
      // The step was to sleep two minutes: only the worker, told by its heartbeat, ends it now.
      await until('the worker to stop the step', async () => (await stepRuns(knex(), runId)).every((s) => s.status === 'cancelled'));
      expect((await runRow(knex(), runId)).status).toBe('cancelled');
    });

    it('a pause reaches the worker: the current step finishes, the next waits until resume, then the run succeeds', async () => {
      const runId = await start(b, 'pausable');
      await until('the first step to start', async () => (await stepRuns(knex(), runId)).some((s) => s.step_id === 'first'));
      expect((await control(a, runId, 'pause')).status).toBe(200);
      await until('the first step to end', async () =>
        (await stepRuns(knex(), runId)).some((s) => s.step_id === 'first' && s.status === 'succeeded'),
      );
      // Several heartbeats' time: a worker that had not heard of the pause would have started the next step.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect((await stepRuns(knex(), runId)).map((s) => s.step_id)).toEqual(['first']);
      expect((await runRow(knex(), runId)).status).toBe('paused');
      expect((await control(a, runId, 'resume')).status).toBe(200);
      await until('the run to succeed', async () => (await runRow(knex(), runId)).status === 'succeeded');
      expect((await stepRuns(knex(), runId)).map((s) => s.step_id)).toEqual(['first', 'second']);
    });
  });
});
