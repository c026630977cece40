import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { ReferenceWorker } from '../src/worker/worker.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { HttpForwarder } from './helpers/http-forwarder.js';
import { seedFlow } from './helpers/runs-fixtures.js';
import { seedOrg, seedUser } from './helpers/seed.js';
import { collect, spawnTs } from './helpers/spawn.js';

const TOKEN = 'worker-e2e-internal-token';

let idp: DevIdp;
let daemon: TestDaemon;
let forwarder: HttpForwarder;
let worker: ReferenceWorker | undefined;
let operator: string;
const flows: Record<string, string> = {};
const knex = () => daemon.services.db.knex;

const noop = (id: string, config: Record<string, unknown> = {}) => ({ id, handler: 'general.noop', config });
const sleep = (id: string, seconds: number) => ({ id, handler: 'general.sleep', config: { seconds } });
const chain = (...ids: string[]) => ids.slice(1).map((to, i) => ({ from: ids[i]!, to }));
const definition = (
  steps: FlowDefinition['steps'],
  edges: FlowDefinition['edges'] = [],
  inputs: FlowDefinition['inputs'] = [],
): FlowDefinition => ({
  steps,
  edges,
  inputs,
  target_roles: [],
});

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({
    SERVICE_IDP_ISSUER: idp.issuer,
    SERVICE_ORG_AUTO_JOIN: 'false',
    SERVICE_INTERNAL_API_TOKEN: TOKEN,
    SERVICE_RUN_LEASE_SECONDS: '3',
    SERVICE_RUN_REAPER_INTERVAL_SECONDS: '1',
  });
  const db = knex();
  const acme = await seedOrg(db, 'acme');
  await seedUser(db, { sub: 'sub-opal', username: 'opal' }, [{ orgSlug: 'acme', role: 'operator' }]);
  operator = `Bearer ${await idp.mintAccessToken({ sub: 'sub-opal', username: 'opal', realmRoles: [] })}`;
  const seed = async (name: string, def: FlowDefinition) => (flows[name] = await seedFlow(db, acme, { name, versions: [def] }));
  await seed(
    'main',
    definition(
      [
        noop('a', { outputs: { first: 1 }, run_vars: { marker: 'set-by-a' } }),
        sleep('nap', 1),
        noop('c', { outputs: { done: true, got: '{{ steps.a.outputs.first }}' } }),
      ],
      chain('a', 'nap', 'c'),
    ),
  );
  await seed(
    'unavailable',
    definition([noop('a'), { id: 'deploy', handler: 'container.run', config: { image: 'alpine:3' } }], chain('a', 'deploy')),
  );
  await seed('child', definition([noop('only', { outputs: { from_child: '{{ inputs.who }}' } })], [], [{ name: 'who', type: 'string' }]));
  await seed(
    'parent',
    definition([
      {
        id: 'call',
        handler: 'flow.run',
        config: { flow_name: 'child', poll_interval_seconds: 1, field_mappings: { who: { mode: 'literal', value: 'parent' } } },
      },
    ]),
  );
  await seed('long', definition([noop('a'), sleep('nap', 3600), noop('c')], chain('a', 'nap', 'c')));
  await seed('pausable', definition([noop('a'), sleep('nap', 2), noop('c')], chain('a', 'nap', 'c')));
  await seed('single', definition([noop('only', { outputs: { ok: true } })]));

  // The worker reaches the daemon through a proxy that can answer a chosen callback 503 first.
  forwarder = new HttpForwarder(daemon.url);
  await forwarder.start();
  worker = new ReferenceWorker({
    serverUrl: forwarder.url,
    internalApiToken: TOKEN,
    workerId: 'e2e-worker',
    capacity: 4,
    shutdownGraceSeconds: 5,
    callbackRetry: { attempts: 5, maxElapsedMs: 10_000, baseDelayMs: 20, maxDelayMs: 200 },
  });
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await forwarder?.stop();
  await daemon?.close();
  await idp?.stop();
});

async function startRun(flow: string): Promise<string> {
  const response = await fetch(`${daemon.url}/runs`, {
    method: 'POST',
    headers: { authorization: operator, 'x-org-id': 'acme', 'content-type': 'application/json' },
    body: JSON.stringify({ flow_id: flows[flow] }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function control(runId: string, command: 'cancel' | 'pause' | 'resume'): Promise<void> {
  const response = await fetch(`${daemon.url}/runs/${runId}/${command}`, {
    method: 'POST',
    headers: { authorization: operator, 'x-org-id': 'acme' },
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

async function internal<T>(path: string): Promise<T> {
  const response = await fetch(`${daemon.url}${path}`, { headers: { 'x-internal-token': TOKEN } });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as T;
}

interface RunRow {
  status: string;
  error_json: { code: string } | null;
  outputs_json: Record<string, unknown>;
  parent_run_id: string | null;
  trigger_source: string;
}
const run = async (id: string): Promise<RunRow> => (await knex()('runs').where({ id }).first()) as RunRow;
const stepRuns = async (id: string): Promise<{ step_id: string; status: string; error_json: { code: string } | null }[]> =>
  knex()('step_runs').where({ run_id: id }).orderBy('created_at');
type Event = { seq: number; type: string; step_id: string | null; data: Record<string, unknown> };
/** The run's events through `GET /runs/{id}/events`, every page. */
async function events(id: string): Promise<Event[]> {
  const all: Event[] = [];
  for (let after = 0; ;) {
    const response = await fetch(`${daemon.url}/runs/${id}/events?after=${after}&limit=1000`, {
      headers: { authorization: operator, 'x-org-id': 'acme' },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const page = (await response.json()) as { items: Event[]; next_after: number | null };
    all.push(...page.items);
    if (page.next_after === null) return all;
    after = page.next_after;
  }
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const finished = (id: string) =>
  until(
    () => run(id),
    (r) => ['succeeded', 'failed', 'cancelled'].includes(r.status),
    `run ${id} to finish`,
  );
const stepIs = (id: string, step: string, status: string) =>
  until(
    () => stepRuns(id),
    (rows) => rows.some((r) => r.step_id === step && r.status === status),
    `${step} to be ${status}`,
  );

describe('one daemon on PGlite with one reference worker', () => {
  it('runs noop -> sleep -> noop to succeeded, with its events in order, outputs and run vars', async () => {
    const id = await startRun('main');
    expect((await finished(id)).status).toBe('succeeded');
    expect((await stepRuns(id)).map((r) => [r.step_id, r.status])).toEqual([
      ['a', 'succeeded'],
      ['nap', 'succeeded'],
      ['c', 'succeeded'],
    ]);

    const log = await events(id);
    expect(log.map((e) => Number(e.seq))).toEqual(log.map((_, i) => i + 1));
    const moves = log
      .filter((e) => e.type === 'run.status' || e.type === 'step.status')
      .map((e) => `${e.type} ${e.step_id ?? '-'} ${String(e.data.to)}`);
    expect(moves).toEqual([
      'run.status - running',
      'step.status a running',
      'step.status a succeeded',
      'step.status nap running',
      'step.status nap succeeded',
      'step.status c running',
      'step.status c succeeded',
      'run.status - succeeded',
    ]);
    const types = log.map((e) => `${e.type} ${e.step_id ?? '-'}`);
    const sleeping = types.indexOf('log nap');
    expect(sleeping).toBeGreaterThan(types.indexOf('step.status nap'));
    expect(sleeping).toBeLessThan(types.lastIndexOf('step.status nap'));

    const read = await internal<{ outputs: unknown; run_vars: unknown }>(`/internal/runs/${id}`);
    expect(read.outputs).toEqual({ done: true, got: 1 });
    expect(read.run_vars).toEqual({ marker: 'set-by-a' });
    expect(await internal(`/internal/runs/${id}/outputs`)).toEqual({
      run_id: id,
      status: 'succeeded',
      outputs: { done: true, got: 1 },
      error: null,
    });
  });

  it('fails a run holding a handler it cannot run with handler_unavailable, before any step runs', async () => {
    const id = await startRun('unavailable');
    const ended = await finished(id);
    expect(ended.status).toBe('failed');
    expect(ended.error_json).toMatchObject({ code: 'handler_unavailable', step_id: 'deploy', handler: 'container.run' });
    expect((await stepRuns(id)).map((r) => [r.step_id, r.status, r.error_json?.code])).toEqual([
      ['deploy', 'failed', 'handler_unavailable'],
    ]);
    const refusal = (await events(id)).find((e) => e.type === 'handler_unavailable');
    expect(refusal).toMatchObject({ step_id: 'deploy', data: { handler: 'container.run', needs: 'container_engine' } });
    expect(typeof refusal!.data.reason).toBe('string');
  });

  it('flow.run starts a child run and waits for it, mirroring its outputs', async () => {
    const id = await startRun('parent');
    expect((await finished(id)).status).toBe('succeeded');
    const child = (await knex()('runs').where({ parent_run_id: id }).first()) as RunRow & { id: string };
    expect(child).toMatchObject({ status: 'succeeded', trigger_source: 'flow' });
    expect((await run(id)).outputs_json).toEqual({ from_child: 'parent' });
  });

  it('cancel during the sleep stops the run: the step run is cancelled, nothing after it starts', async () => {
    const id = await startRun('long');
    await stepIs(id, 'nap', 'running');
    await control(id, 'cancel');
    await stepIs(id, 'nap', 'cancelled');
    expect((await run(id)).status).toBe('cancelled');
    expect((await stepRuns(id)).map((r) => r.step_id)).toEqual(['a', 'nap']);
    await until(
      async () => worker!.heldRuns(),
      (held) => !held.includes(id),
      'the worker to let the run go',
    );
  });

  it('pause holds the next step after the current one ends; resume continues to the end', async () => {
    const id = await startRun('pausable');
    await stepIs(id, 'nap', 'running');
    await control(id, 'pause');
    await stepIs(id, 'nap', 'succeeded');
    // Several heartbeats later (lease 3 s: one a second), the next step has still not started.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await stepRuns(id)).map((r) => r.step_id)).toEqual(['a', 'nap']);
    expect((await run(id)).status).toBe('paused');
    await control(id, 'resume');
    expect((await finished(id)).status).toBe('succeeded');
    expect((await stepRuns(id)).map((r) => r.step_id)).toEqual(['a', 'nap', 'c']);
  });

  it('retries a callback answered 503', async () => {
    forwarder.failures.push({ match: /^POST \/internal\/runs\/[^/]+\/step-runs$/, statuses: [503] });
    forwarder.failures.push({ match: /^PATCH \/internal\/runs\/[^/]+$/, statuses: [503] });
    const id = await startRun('single');
    expect((await finished(id)).status).toBe('succeeded');
    // The row commits before the proxy sees the answer go back.
    const lines = await until(
      async () => forwarder.seen.filter((s) => s.line.includes(id)).map((s) => `${s.line.replace(id, 'RUN')} ${s.status}`),
      (seen) => seen.includes('PATCH /internal/runs/RUN 200'),
      'the run end to pass the proxy',
    );
    expect(lines).toContain('POST /internal/runs/RUN/step-runs 503');
    expect(lines).toContain('POST /internal/runs/RUN/step-runs 201');
    expect(lines).toContain('PATCH /internal/runs/RUN 503');
    expect(lines).toContain('PATCH /internal/runs/RUN 200');
    expect((await stepRuns(id)).map((r) => r.step_id)).toEqual(['only']);
  });

  it('svcd worker, spawned, drains on SIGTERM: the run it was in is handed back (failed worker_lost) and it exits 0', async () => {
    await worker!.stop();
    worker = undefined;
    const child = spawnTs('src/daemon/main.ts', ['worker'], {
      SERVICE_SERVER_URL: daemon.url,
      SERVICE_INTERNAL_API_TOKEN: TOKEN,
      SERVICE_WORKER_ID: 'spawned-e2e',
      SERVICE_WORKER_SHUTDOWN_GRACE_SECONDS: '0',
      SERVICE_LOG_LEVEL: 'silent',
    });
    const exit = collect(child).finished;
    // A spawned worker loads the daemon's code through tsx first: on a loaded host that alone takes
    // tens of seconds, which the run's own wait below should not have to cover.
    await until(() => knex()('workers').where({ id: 'spawned-e2e' }).first('id'), Boolean, 'the spawned worker to check in', 60_000);
    const id = await startRun('long');
    await stepIs(id, 'nap', 'running');
    child.kill('SIGTERM');
    expect((await exit).code).toBe(0);
    const ended = await finished(id);
    expect(ended).toMatchObject({ status: 'failed', error_json: { code: 'worker_lost' } });
    expect((await stepRuns(id)).find((r) => r.step_id === 'nap')).toMatchObject({
      status: 'failed',
      error_json: { code: 'worker_stopped' },
    });
  }, 120_000);
});
