import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORKER_ID_HEADER, RUN_ATTEMPT_HEADER } from '../src/shared/api/run-callbacks.js';
import { RUNNABLE_HANDLERS } from '../src/worker/handlers/index.js';
import { ReferenceWorker } from '../src/worker/worker.js';
import { FakeWorkerDaemon } from './helpers/fake-worker-daemon.js';
import { collect, spawnTs } from './helpers/spawn.js';
import { assignmentOf } from './helpers/worker-fakes.js';

const FAST = { attempts: 5, maxElapsedMs: 5_000, baseDelayMs: 5, maxDelayMs: 20 };
const RUN = '00000000-0000-4000-8000-000000000001';
const CHILD = '00000000-0000-4000-8000-000000000002';

let daemon: FakeWorkerDaemon;
let worker: ReferenceWorker | undefined;
beforeEach(async () => {
  daemon = new FakeWorkerDaemon();
  await daemon.start();
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await daemon.stop();
});

function startWorker(graceSeconds = 5): ReferenceWorker {
  worker = new ReferenceWorker({
    serverUrl: daemon.url,
    internalApiToken: 'tok',
    workerId: 'w-test',
    capacity: 2,
    shutdownGraceSeconds: graceSeconds,
    callbackRetry: FAST,
    heartbeatRetry: FAST,
  });
  worker.start();
  return worker;
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const sleepFlow = (seconds: number) => ({
  steps: [
    { id: 'a', handler: 'general.noop', config: {} },
    { id: 'nap', handler: 'general.sleep', config: { seconds } },
    { id: 'c', handler: 'general.noop', config: {} },
  ],
  edges: [
    { from: 'a', to: 'nap' },
    { from: 'nap', to: 'c' },
  ],
});

describe('the reference worker against a stand-in daemon', () => {
  it('heartbeats with its handlers and slots, runs what it is assigned and names it while it runs', async () => {
    daemon.queue.push(assignmentOf(sleepFlow(1)));
    startWorker();
    await until(() => daemon.callbacks().some((c) => c.method === 'PATCH' && c.path === `/internal/runs/${RUN}`), 'the run to end');
    const [first] = daemon.heartbeats();
    expect(first).toMatchObject({ worker_id: 'w-test', free_slots: 2, running: [], released: [] });
    expect(first!.handlers!.sort()).toEqual([...RUNNABLE_HANDLERS.keys()].sort());
    expect(daemon.heartbeats().some((h) => h.running.some((r) => r.run_id === RUN) && h.free_slots === 1)).toBe(true);
    for (const call of daemon.callbacks()) {
      expect(call.headers[WORKER_ID_HEADER]).toBe('w-test');
      expect(call.headers[RUN_ATTEMPT_HEADER]).toBe('1');
      expect(call.headers['x-internal-token']).toBe('tok');
    }
    const end = daemon.callbacks().find((c) => c.method === 'PATCH' && c.path === `/internal/runs/${RUN}`)!;
    expect(end.body).toEqual({ status: 'succeeded', outputs: {} });
    const count = daemon.heartbeats().length;
    await until(() => daemon.heartbeats().length > count + 1, 'two more heartbeats');
    expect(daemon.heartbeats().at(-1)!.running).toEqual([]);
  });

  it('stops a cancelled run: its step run ends cancelled, the run is not patched, and it is no longer named', async () => {
    daemon.queue.push(assignmentOf(sleepFlow(3600)));
    startWorker();
    await until(() => daemon.callbacks().filter((c) => c.path.endsWith('/step-runs')).length === 2, 'the sleep step to start');
    daemon.cancel.add(RUN);
    await until(
      () => daemon.callbacks().some((c) => c.method === 'PATCH' && (c.body as { status?: string }).status === 'cancelled'),
      'the cancelled step run',
    );
    expect(daemon.callbacks().some((c) => c.method === 'PATCH' && c.path === `/internal/runs/${RUN}`)).toBe(false);
    const count = daemon.heartbeats().length;
    await until(() => daemon.heartbeats().length > count + 1, 'two more heartbeats');
    expect(daemon.heartbeats().at(-1)!.running).toEqual([]);
  });

  it('drops a lost run silently', async () => {
    daemon.queue.push(assignmentOf(sleepFlow(3600)));
    startWorker();
    await until(() => daemon.callbacks().filter((c) => c.path.endsWith('/step-runs')).length === 2, 'the sleep step to start');
    daemon.lost.add(RUN);
    await until(() => worker!.heldRuns().length === 0, 'the run to be dropped');
    const before = daemon.callbacks().length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(daemon.callbacks().length).toBe(before);
  });

  it('retries callbacks answered 503 (and a heartbeat answered 502)', async () => {
    daemon.failures.push({ path: /^POST \/internal\/runs\/[^/]+\/step-runs$/, statuses: [503, 503] });
    daemon.failures.push({ path: /^PATCH \/internal\/runs\//, statuses: [503] });
    daemon.failures.push({ path: /heartbeat$/, statuses: [502] });
    daemon.queue.push(assignmentOf({ steps: [{ id: 'a', handler: 'general.noop', config: {} }], edges: [] }));
    startWorker();
    await until(
      () =>
        daemon.calls.some(
          (c) => c.method === 'PATCH' && c.path === `/internal/runs/${RUN}` && c.body !== undefined && worker!.heldRuns().length === 0,
        ),
      'the run to end',
    );
    const seen = daemon.callbacks().map((c) => `${c.method} ${c.path.replace(RUN, 'RUN')}`);
    expect(seen.filter((c) => c === 'POST /internal/runs/RUN/step-runs')).toHaveLength(3);
    expect(seen.filter((c) => c === 'PATCH /internal/runs/RUN')).toHaveLength(2);
    expect(daemon.callbacks().filter((c) => c.path.endsWith('/step-runs'))[2]!.body).toEqual({
      step_id: 'a',
      handler: 'general.noop',
      status: 'running',
    });
  });

  it('a run only waiting for its child run takes no slot: a full worker still claims the child', async () => {
    const parent = assignmentOf({
      steps: [{ id: 'call', handler: 'flow.run', config: { flow_name: 'other', poll_interval_seconds: 1 } }],
      edges: [],
    });
    const child = assignmentOf({ steps: [{ id: 'a', handler: 'general.noop', config: {} }], edges: [] }, { run_id: CHILD });
    daemon.queue.push(parent);
    worker = new ReferenceWorker({
      serverUrl: daemon.url,
      internalApiToken: 'tok',
      workerId: 'w-one-slot',
      capacity: 1,
      shutdownGraceSeconds: 0,
      callbackRetry: FAST,
      heartbeatRetry: FAST,
    });
    worker.start();
    await until(() => daemon.callbacks().some((c) => c.method === 'POST' && c.path === '/internal/runs'), 'the child run to be started');
    daemon.queue.push(child);
    await until(
      () => daemon.callbacks().some((c) => c.method === 'PATCH' && c.path === `/internal/runs/${CHILD}`),
      'the child to run beside its parent',
    );
    expect(worker.heldRuns()).toContain(RUN);
  });

  it('a gate ends the execution awaiting approval: the slot is freed and the run no longer named; the resumed attempt runs on', async () => {
    const gated = {
      steps: [
        { id: 'a', handler: 'general.noop', config: { outputs: { n: 1 } } },
        { id: 'gate', handler: 'general.noop', config: {}, approval: { message: 'go?' } },
      ],
      edges: [{ from: 'a', to: 'gate' }],
    };
    daemon.queue.push(assignmentOf(gated));
    startWorker();
    const asked = () => daemon.callbacks().findIndex((c) => c.method === 'POST' && c.path === `/internal/runs/${RUN}/approvals`);
    await until(() => asked() >= 0, 'the approval request');
    expect(daemon.callbacks()[asked()]!.body).toEqual({ step_id: 'gate', message: 'go?' });
    await until(() => worker!.heldRuns().length === 0, 'the run to be dropped');
    const count = daemon.heartbeats().length;
    await until(() => daemon.heartbeats().length > count + 1, 'two more heartbeats');
    expect(daemon.heartbeats().at(-1)).toMatchObject({ running: [], free_slots: 2 });
    expect(daemon.callbacks().some((c) => c.method === 'PATCH' && c.path === `/internal/runs/${RUN}`)).toBe(false);

    daemon.queue.push(assignmentOf(gated, { attempt: 2, completed_steps: { a: { outputs: { n: 1 } } }, approved_steps: ['gate'] }));
    await until(() => daemon.callbacks().some((c) => c.method === 'PATCH' && c.path === `/internal/runs/${RUN}`), 'the resumed run to end');
    const resumed = daemon.callbacks().filter((c) => c.headers[RUN_ATTEMPT_HEADER] === '2');
    expect(resumed.filter((c) => c.path.endsWith('/step-runs')).map((c) => (c.body as { step_id: string }).step_id)).toEqual(['gate']);
    expect(resumed.at(-1)!.body).toEqual({ status: 'succeeded', outputs: {} });
  });

  it('on stop drains: claims nothing, hands back a run that started no step, and stops', async () => {
    daemon.queue.push(assignmentOf(sleepFlow(1), { status: 'paused' }));
    startWorker();
    await until(() => worker!.heldRuns().length === 1, 'the assignment');
    await worker!.stop();
    const last = daemon.heartbeats().at(-1)!;
    expect(last).toMatchObject({ draining: true, free_slots: 0, running: [], released: [{ run_id: RUN, attempt: 1 }] });
    expect(daemon.callbacks()).toEqual([]);
  });
});

describe('svcd worker', () => {
  it('on SIGTERM drains, hands back its runs and exits 0', async () => {
    daemon.queue.push(assignmentOf(sleepFlow(3600)));
    const child = spawnTs('src/daemon/main.ts', ['worker'], {
      SERVICE_SERVER_URL: daemon.url,
      SERVICE_INTERNAL_API_TOKEN: 'tok',
      SERVICE_WORKER_ID: 'spawned-1',
      SERVICE_WORKER_SHUTDOWN_GRACE_SECONDS: '0',
      SERVICE_LOG_LEVEL: 'info',
    });
    const { finished } = collect(child);
    await until(() => daemon.callbacks().filter((c) => c.path.endsWith('/step-runs')).length === 2, 'the sleep step to start', 30_000);
    child.kill('SIGTERM');
    const { code } = await finished;
    expect(code).toBe(0);
    const last = daemon.heartbeats().at(-1)!;
    expect(last).toMatchObject({ worker_id: 'spawned-1', draining: true, running: [], released: [{ run_id: RUN, attempt: 1 }] });
    // The step it was in is ended (failed: the worker stopped), not left running.
    expect(
      daemon.callbacks().some((c) => c.method === 'PATCH' && (c.body as { error?: { code?: string } }).error?.code === 'worker_stopped'),
    ).toBe(true);
  });
});
