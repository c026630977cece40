import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admitRun,
  callback,
  eventsOf,
  heldRun,
  holdRun,
  json,
  problemOf,
  startCallbacksWorld,
  type CallbacksWorld,
} from './helpers/callbacks-fixtures.js';
import { UNKNOWN_ID } from './helpers/runs-fixtures.js';

let world: CallbacksWorld;
const knex = () => world.knex;

beforeAll(async () => {
  world = await startCallbacksWorld();
});
afterAll(async () => {
  await world?.close();
});

const row = (id: string) => knex()('runs').where({ id }).first();
const audit = (eventType: string, id: string) => knex()('audit_logs').where({ event_type: eventType, resource_id: id }).select();

/** `GET /runs/{run_id}` as a user of the run's organization sees it. */
async function userView(runId: string): Promise<Record<string, unknown>> {
  return json(await fetch(`${world.daemon.url}/runs/${runId}`, { headers: { authorization: world.operator, 'x-org-id': 'acme' } }));
}

function control(runId: string, command: string): Promise<Response> {
  return fetch(`${world.daemon.url}/runs/${runId}/${command}`, {
    method: 'POST',
    headers: { authorization: world.operator, 'x-org-id': 'acme' },
  });
}

describe('GET /internal/runs/{run_id} and its outputs', () => {
  it('reads the run as its worker sees it, without fencing headers', async () => {
    const id = await heldRun(world);
    const run = await json(await callback(world, 'GET', `/internal/runs/${id}`, { worker: null, attempt: null }));
    expect(run).toMatchObject({ id, status: 'running', worker_id: 'w1', attempt: 1, run_vars: {}, outputs: {}, error: null, event_seq: 0 });
    expect(run.lease_expires_at).toEqual(expect.any(String));
    const outputs = await json(await callback(world, 'GET', `/internal/runs/${id}/outputs`, { worker: 'someone-else' }));
    expect(outputs).toEqual({ run_id: id, status: 'running', outputs: {}, error: null });
  });

  it.each([UNKNOWN_ID, 'not-a-uuid'])('answers 404 for the unknown run %s', async (id) => {
    expect((await problemOf(await callback(world, 'GET', `/internal/runs/${id}`))).code).toBe('resource_not_found');
    expect((await callback(world, 'GET', `/internal/runs/${id}/outputs`)).status).toBe(404);
  });
});

describe('PATCH /internal/runs/{run_id}', () => {
  it('ends the run succeeded: outputs, finished_at, lease cleared, run.status event, run.finished entry', async () => {
    const id = await heldRun(world);
    const answer = await json(
      await callback(world, 'PATCH', `/internal/runs/${id}`, { body: { status: 'succeeded', outputs: { answer: 42 } } }),
    );
    expect(answer).toMatchObject({ status: 'succeeded', outputs: { answer: 42 }, lease_expires_at: null, error: null });
    const stored = await row(id);
    expect(stored).toMatchObject({ status: 'succeeded', outputs_json: { answer: 42 }, lease_expires_at: null });
    expect(stored.finished_at).not.toBeNull();
    const events = await eventsOf(knex(), id);
    expect(events.map((e) => [Number(e.seq), e.type, e.data])).toEqual([
      [1, 'run.status', { from: 'running', to: 'succeeded', worker_id: 'w1', attempt: 1 }],
    ]);
    const [entry] = await audit('run.finished', id);
    expect(entry).toMatchObject({ action: 'internal:run_callbacks', resource_type: 'run', org_id: world.orgId });
    expect(entry.details_json).toMatchObject({ status: 'succeeded', workflow_id: `run-${id}` });
    expect(await userView(id)).toMatchObject({ status: 'succeeded', outputs: { answer: 42 }, error: null });
  });

  it('ends a paused run failed with its error: run.failed entry naming it', async () => {
    const id = await heldRun(world);
    await knex()('runs').where({ id }).update({ status: 'paused', paused_at: knex().fn.now() });
    const error = { code: 'step_failed', message: 'the router said no' };
    const answer = await json(await callback(world, 'PATCH', `/internal/runs/${id}`, { body: { status: 'failed', error } }));
    expect(answer).toMatchObject({ status: 'failed', error });
    expect(await row(id)).toMatchObject({ status: 'failed', error_json: error, paused_at: null, lease_expires_at: null });
    const [entry] = await audit('run.failed', id);
    expect(entry.details_json).toMatchObject({ status: 'failed', error });
    // Why it failed is in its event, which a follower reads, and in the run its users read.
    const events = await eventsOf(knex(), id);
    expect(events.map((e) => e.data)).toEqual([
      { from: 'paused', to: 'failed', worker_id: 'w1', attempt: 1, reason: 'step_failed', error },
    ]);
    expect(await userView(id)).toMatchObject({ status: 'failed', outputs: {}, error });
  });

  it('answers 409 invalid_run_state from a terminal state (a run its user cancelled), changing nothing', async () => {
    const id = await heldRun(world);
    expect((await control(id, 'cancel')).status).toBe(200);
    const response = await callback(world, 'PATCH', `/internal/runs/${id}`, { body: { status: 'succeeded' } });
    expect(await problemOf(response)).toEqual({ status: 409, code: 'invalid_run_state' });
    expect((await row(id)).status).toBe('cancelled');
    expect(await audit('run.finished', id)).toHaveLength(0);
  });

  it('answers 409 run_not_held to another worker, an older attempt, or once the lease ended; 404 first for an unknown run', async () => {
    const id = await heldRun(world);
    const patch = (options: { worker?: string; attempt?: number }, runId = id) =>
      callback(world, 'PATCH', `/internal/runs/${runId}`, { body: { status: 'succeeded' }, ...options });
    expect(await problemOf(await patch({ worker: 'w2' }))).toEqual({ status: 409, code: 'run_not_held' });
    await holdRun(knex(), id, 'w1', 2);
    expect(await problemOf(await patch({ attempt: 1 }))).toEqual({ status: 409, code: 'run_not_held' });
    await knex()('runs').where({ id }).update({ lease_expires_at: null });
    expect(await problemOf(await patch({ attempt: 2 }))).toEqual({ status: 409, code: 'run_not_held' });
    expect(await problemOf(await patch({ worker: 'w2' }, UNKNOWN_ID))).toEqual({ status: 404, code: 'resource_not_found' });
    expect((await row(id)).status).toBe('running');
  });

  it('answers 409 run_not_held before the state: a finished run another worker names', async () => {
    const id = await heldRun(world);
    expect((await control(id, 'cancel')).status).toBe(200);
    const response = await callback(world, 'PATCH', `/internal/runs/${id}`, { body: { status: 'succeeded' }, worker: 'w2' });
    expect(await problemOf(response)).toEqual({ status: 409, code: 'run_not_held' });
  });

  it.each([
    ['no worker id', { worker: null }, 'headers.x-worker-id'],
    ['no attempt', { attempt: null }, 'headers.x-run-attempt'],
    ['an attempt of 0', { attempt: 0 }, 'headers.x-run-attempt'],
    ['an attempt not a number', { attempt: 'one' }, 'headers.x-run-attempt'],
  ])('answers 422 for %s, naming the header', async (_, headers, path) => {
    const id = await heldRun(world);
    const problem = await problemOf(await callback(world, 'PATCH', `/internal/runs/${id}`, { body: { status: 'succeeded' }, ...headers }));
    expect(problem).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(problem.errors!.map((e) => e.path)).toEqual([path]);
    expect((await row(id)).status).toBe('running');
  });

  it.each([
    [{ status: 'running' }, ['status']],
    [{ status: 'succeeded', outputs: [] }, ['outputs']],
    [{ status: 'failed', error: { message: 'no code' } }, ['error.code']],
    [{ status: 'succeeded', extra: 1 }, ['']],
    [{ status: 'succeeded', outputs: { x: 'nul\u0000' } }, ['outputs.x']],
  ])('answers 422 with paths for the malformed body %j', async (body, paths) => {
    const id = await heldRun(world);
    const problem = await problemOf(await callback(world, 'PATCH', `/internal/runs/${id}`, { body }));
    expect(problem).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(problem.errors!.map((e) => e.path)).toEqual(paths);
  });
});

describe('PUT /internal/runs/{run_id}/run-vars', () => {
  it("replaces the run's variables", async () => {
    const id = await heldRun(world);
    const put = (run_vars: Record<string, unknown>) => callback(world, 'PUT', `/internal/runs/${id}/run-vars`, { body: { run_vars } });
    expect(await json(await put({ a: 1, b: { c: 'x' } }))).toEqual({ run_vars: { a: 1, b: { c: 'x' } } });
    expect(await json(await put({ d: true }))).toEqual({ run_vars: { d: true } });
    expect((await row(id)).run_vars_json).toEqual({ d: true });
  });

  it('is fenced: 409 run_not_held for another worker, 409 invalid_run_state once finished, 422 for a malformed body', async () => {
    const id = await heldRun(world);
    const put = (options: object) => callback(world, 'PUT', `/internal/runs/${id}/run-vars`, { body: { run_vars: { a: 1 } }, ...options });
    expect(await problemOf(await put({ worker: 'w2' }))).toEqual({ status: 409, code: 'run_not_held' });
    const bad = await problemOf(await put({ body: { run_vars: 'x' } }));
    expect(bad.errors!.map((e) => e.path)).toEqual(['run_vars']);
    expect((await control(id, 'cancel')).status).toBe(200);
    expect(await problemOf(await put({}))).toEqual({ status: 409, code: 'invalid_run_state' });
    expect((await row(id)).run_vars_json).toEqual({});
  });
});

describe('POST /internal/runs/{run_id}/assign-shared-worker', () => {
  it('lets the first writer win', async () => {
    const id = await heldRun(world);
    const assign = (worker_id: string) => callback(world, 'POST', `/internal/runs/${id}/assign-shared-worker`, { body: { worker_id } });
    expect(await json(await assign('w7'))).toEqual({ shared_worker_id: 'w7', assigned: true });
    expect(await json(await assign('w8'))).toEqual({ shared_worker_id: 'w7', assigned: false });
    expect(await json(await assign('w7'))).toEqual({ shared_worker_id: 'w7', assigned: true });
    expect((await row(id)).shared_worker_id).toBe('w7');
  });

  it('is fenced and validated', async () => {
    const id = await heldRun(world);
    const path = `/internal/runs/${id}/assign-shared-worker`;
    expect(await problemOf(await callback(world, 'POST', path, { body: { worker_id: 'w7' }, attempt: 3 }))).toEqual({
      status: 409,
      code: 'run_not_held',
    });
    expect((await problemOf(await callback(world, 'POST', path, { body: { worker_id: '' } }))).errors!.map((e) => e.path)).toEqual([
      'worker_id',
    ]);
    expect(
      (await problemOf(await callback(world, 'POST', `/internal/runs/${UNKNOWN_ID}/assign-shared-worker`, { body: { worker_id: 'w' } })))
        .code,
    ).toBe('resource_not_found');
    expect((await row(id)).shared_worker_id).toBeNull();
  });
});

describe('POST /internal/runs/{run_id}/cancel', () => {
  it("cancels the holder's run: cancelled_at, finished_at, run.status event, run.cancelled entry; the lease stays", async () => {
    const id = await heldRun(world);
    const answer = await json(await callback(world, 'POST', `/internal/runs/${id}/cancel`, { body: { reason: 'step decided' } }));
    expect(answer).toMatchObject({ status: 'cancelled' });
    const stored = await row(id);
    expect(stored.cancelled_at).not.toBeNull();
    expect(stored.finished_at).not.toBeNull();
    expect(stored.lease_expires_at).not.toBeNull();
    expect((await eventsOf(knex(), id)).map((e) => [e.type, e.data])).toEqual([
      ['run.status', { from: 'running', to: 'cancelled', reason: 'worker_cancelled' }],
    ]);
    const [entry] = await audit('run.cancelled', id);
    expect(entry).toMatchObject({ action: 'internal:run_callbacks' });
    expect(await problemOf(await callback(world, 'POST', `/internal/runs/${id}/cancel`, { body: {} }))).toEqual({
      status: 409,
      code: 'invalid_run_state',
    });
  });

  it("lets the parent's holder cancel a queued child run; anyone else gets 409 run_not_held", async () => {
    const parent = await heldRun(world);
    const child = await admitRun(world);
    await knex()('runs').where({ id: child.id }).update({ parent_run_id: parent, parent_step_id: 'sub', parent_attempt: 1 });
    const cancel = (options: object) => callback(world, 'POST', `/internal/runs/${child.id}/cancel`, { body: {}, ...options });
    expect(await problemOf(await cancel({ worker: 'w2' }))).toEqual({ status: 409, code: 'run_not_held' });
    expect((await row(child.id)).status).toBe('queued');
    expect(await json(await cancel({}))).toMatchObject({ status: 'cancelled' });
    expect((await row(parent)).status).toBe('running');
  });

  it('answers 404 for an unknown run, 422 without fencing headers', async () => {
    expect(await problemOf(await callback(world, 'POST', `/internal/runs/${UNKNOWN_ID}/cancel`, { body: {} }))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    const id = await heldRun(world);
    expect((await callback(world, 'POST', `/internal/runs/${id}/cancel`, { body: {}, worker: null })).status).toBe(422);
    expect((await callback(world, 'POST', `/internal/runs/${id}/cancel`, { body: { reason: 5 } })).status).toBe(422);
  });
});

describe('cancel cascades to child runs', () => {
  async function family(): Promise<{ parent: string; child: string; grandchild: string; done: string }> {
    const parent = await heldRun(world);
    const child = (await admitRun(world)).id;
    await holdRun(knex(), child, 'w2', 1);
    const grandchild = (await admitRun(world)).id;
    const done = (await admitRun(world)).id;
    await knex()('runs').where({ id: child }).update({ parent_run_id: parent, parent_step_id: 'sub', parent_attempt: 1 });
    await knex()('runs').where({ id: grandchild }).update({ parent_run_id: child, parent_step_id: 'sub', parent_attempt: 1 });
    await knex()('runs')
      .where({ id: done })
      .update({ parent_run_id: parent, parent_step_id: 'other', parent_attempt: 1, status: 'succeeded', finished_at: knex().fn.now() });
    return { parent, child, grandchild, done };
  }

  it('the control route cancels every active run below, each with its event and entry, leaving finished ones', async () => {
    const f = await family();
    expect((await control(f.parent, 'cancel')).status).toBe(200);
    for (const id of [f.child, f.grandchild]) {
      const stored = await row(id);
      expect(stored).toMatchObject({ status: 'cancelled', cancelled_by: 'sub-opal' });
      expect(stored.finished_at).not.toBeNull();
      expect((await eventsOf(knex(), id)).map((e) => e.data)).toEqual([
        { from: id === f.child ? 'running' : 'queued', to: 'cancelled', reason: 'parent_cancelled' },
      ]);
      const [entry] = await audit('run.cancelled', id);
      expect(entry).toMatchObject({ action: 'run:control' });
    }
    expect((await row(f.done)).status).toBe('succeeded');
    expect(await audit('run.cancelled', f.done)).toHaveLength(0);
  });

  it("the worker's internal cancel cascades the same way", async () => {
    const f = await family();
    expect((await callback(world, 'POST', `/internal/runs/${f.parent}/cancel`, { body: {} })).status).toBe(200);
    expect((await row(f.child)).status).toBe('cancelled');
    expect((await row(f.grandchild)).status).toBe('cancelled');
    const [entry] = await audit('run.cancelled', f.grandchild);
    expect(entry).toMatchObject({ action: 'internal:run_callbacks' });
  });
});

describe('the control routes append run.status events', () => {
  it('pause, resume and cancel each append one, numbered after the others', async () => {
    const id = await heldRun(world);
    for (const command of ['pause', 'resume', 'pause', 'cancel']) expect((await control(id, command)).status).toBe(200);
    const events = await eventsOf(knex(), id);
    expect(events.map((e) => [Number(e.seq), e.type, e.data])).toEqual([
      [1, 'run.status', { from: 'running', to: 'paused' }],
      [2, 'run.status', { from: 'paused', to: 'running' }],
      [3, 'run.status', { from: 'running', to: 'paused' }],
      [4, 'run.status', { from: 'paused', to: 'cancelled' }],
    ]);
    expect(Number((await row(id)).event_seq)).toBe(4);
  });

  it('a refused command appends nothing', async () => {
    const run = await admitRun(world);
    expect((await control(run.id, 'resume')).status).toBe(409);
    expect(await eventsOf(knex(), run.id)).toEqual([]);
  });
});

describe('every callback', () => {
  /** Each route with a valid body, for run `id` (and the step run `step` of it). */
  const ROUTES = (id: string, step: string): [string, string, unknown][] => [
    ['PATCH', `/internal/runs/${id}`, { status: 'succeeded' }],
    ['POST', `/internal/runs/${id}/events`, { events: [{ worker_seq: 1, type: 'log' }] }],
    ['POST', `/internal/runs/${id}/step-runs`, { step_id: 'other', handler: 'general.noop' }],
    ['PATCH', `/internal/step-runs/${step}`, { status: 'succeeded' }],
    ['PUT', `/internal/runs/${id}/run-vars`, { run_vars: {} }],
    ['POST', `/internal/runs/${id}/cancel`, {}],
    ['POST', `/internal/runs/${id}/assign-shared-worker`, { worker_id: 'w1' }],
    ['POST', '/internal/runs', { parent_run_id: id, parent_step_id: 'sub', flow_id: world.flowId }],
  ];
  const READS = (id: string): [string, string, unknown][] => [
    ['GET', `/internal/runs/${id}`, undefined],
    ['GET', `/internal/runs/${id}/step-outputs`, undefined],
    ['GET', `/internal/runs/${id}/outputs`, undefined],
  ];

  async function heldWithStep(): Promise<{ id: string; step: string }> {
    const id = await heldRun(world);
    const step = await json<{ id: string }>(
      await callback(world, 'POST', `/internal/runs/${id}/step-runs`, { body: { step_id: 'noop', handler: 'general.noop' } }),
      201,
    );
    return { id, step: step.id };
  }

  const unchanged = async (id: string, step: string) => {
    const stored = await row(id);
    expect(stored).toMatchObject({ status: 'running', run_vars_json: {}, shared_worker_id: null });
    expect(Number(stored.event_seq)).toBe(1);
    expect((await knex()('step_runs').where({ id: step }).first()).status).toBe('running');
    expect(await knex()('runs').where({ parent_run_id: id })).toHaveLength(0);
  };

  it('refuses a missing or wrong internal token with 401 on every route, changing nothing', async () => {
    const { id, step } = await heldWithStep();
    for (const [method, path, body] of [...ROUTES(id, step), ...READS(id)]) {
      for (const token of [null, 'wrong-token-0123456789-abcdefghij']) {
        expect(await problemOf(await callback(world, method, path, { body, token })), `${method} ${path}`).toEqual({
          status: 401,
          code: 'invalid_internal_token',
        });
      }
    }
    await unchanged(id, step);
  });

  it('answers 422 naming both headers when the fencing headers are missing, on every mutating route', async () => {
    const { id, step } = await heldWithStep();
    for (const [method, path, body] of ROUTES(id, step)) {
      const problem = await problemOf(await callback(world, method, path, { body, worker: null, attempt: null }));
      expect(problem, `${method} ${path}`).toMatchObject({ status: 422, code: 'validation_failed' });
      expect(problem.errors!.map((e) => e.path).sort()).toEqual(['headers.x-run-attempt', 'headers.x-worker-id']);
    }
    await unchanged(id, step);
  });

  it('answers 409 run_not_held to another worker and to an older attempt, on every mutating route', async () => {
    const { id, step } = await heldWithStep();
    for (const [method, path, body] of ROUTES(id, step)) {
      for (const holder of [{ worker: 'w2' }, { attempt: 2 }]) {
        expect(await problemOf(await callback(world, method, path, { body, ...holder })), `${method} ${path}`).toEqual({
          status: 409,
          code: 'run_not_held',
        });
      }
    }
    await unchanged(id, step);
  });

  it('answers 404 for an unknown run (or step run) on every route, before fencing', async () => {
    for (const [method, path, body] of [...ROUTES(UNKNOWN_ID, UNKNOWN_ID), ...READS(UNKNOWN_ID)]) {
      expect(await problemOf(await callback(world, method, path, { body, worker: 'nobody' })), `${method} ${path}`).toEqual({
        status: 404,
        code: 'resource_not_found',
      });
    }
  });
});
