import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
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

interface StepRun {
  id: string;
  run_id: string;
  attempt: number;
  step_id: string;
  handler: string;
  status: string;
  summary: string | null;
  outputs: Record<string, unknown>;
  error: Record<string, unknown> | null;
  started_at: string | null;
  finished_at: string | null;
}

function create(runId: string, body: unknown, options: object = {}): Promise<Response> {
  return callback(world, 'POST', `/internal/runs/${runId}/step-runs`, { body, ...options });
}
function move(stepRunId: string, body: unknown, options: object = {}): Promise<Response> {
  return callback(world, 'PATCH', `/internal/step-runs/${stepRunId}`, { body, ...options });
}
const stepEvents = async (runId: string) => (await eventsOf(knex(), runId)).filter((e) => e.type === 'step.status').map((e) => e.data);

describe('POST /internal/runs/{run_id}/step-runs', () => {
  it("creates the step run of the holder's attempt (201), running with started_at, and a step.status event", async () => {
    const id = await heldRun(world);
    const created = await json<StepRun>(await create(id, { step_id: 'noop', handler: 'general.noop' }), 201);
    expect(created).toMatchObject({
      run_id: id,
      attempt: 1,
      step_id: 'noop',
      handler: 'general.noop',
      status: 'running',
      finished_at: null,
    });
    expect(created.started_at).toEqual(expect.any(String));
    expect(await knex()('step_runs').where({ id: created.id }).first()).toMatchObject({ status: 'running', attempt: 1 });
    expect(await stepEvents(id)).toEqual([
      { step_run_id: created.id, step_id: 'noop', handler: 'general.noop', from: null, to: 'running' },
    ]);
  });

  it('answers a retried create with the existing row (200) and no second event', async () => {
    const id = await heldRun(world);
    const first = await json<StepRun>(await create(id, { step_id: 'wait', handler: 'general.sleep', status: 'pending' }), 201);
    expect(first.started_at).toBeNull();
    const again = await json<StepRun>(await create(id, { step_id: 'wait', handler: 'general.sleep', status: 'pending' }), 200);
    expect(again.id).toBe(first.id);
    expect(await knex()('step_runs').where({ run_id: id })).toHaveLength(1);
    expect(await stepEvents(id)).toHaveLength(1);
  });

  it('makes a new step run in a new attempt', async () => {
    const id = await heldRun(world);
    const first = await json<StepRun>(await create(id, { step_id: 'noop', handler: 'general.noop' }), 201);
    await holdRun(knex(), id, 'w2', 2);
    const second = await json<StepRun>(await create(id, { step_id: 'noop', handler: 'general.noop' }, { worker: 'w2', attempt: 2 }), 201);
    expect(second.id).not.toBe(first.id);
    expect(second.attempt).toBe(2);
  });

  it('refuses a paused or finished run with 409 invalid_run_state, another holder with run_not_held, an unknown run 404', async () => {
    const id = await heldRun(world);
    const body = { step_id: 'noop', handler: 'general.noop' };
    expect(await problemOf(await create(id, body, { worker: 'w2' }))).toEqual({ status: 409, code: 'run_not_held' });
    await knex()('runs').where({ id }).update({ status: 'paused' });
    expect(await problemOf(await create(id, body))).toEqual({ status: 409, code: 'invalid_run_state' });
    await knex()('runs').where({ id }).update({ status: 'cancelled' });
    expect(await problemOf(await create(id, body))).toEqual({ status: 409, code: 'invalid_run_state' });
    expect(await problemOf(await create(UNKNOWN_ID, body))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await knex()('step_runs').where({ run_id: id })).toHaveLength(0);
  });

  it.each([
    [{ handler: 'general.noop' }, ['step_id']],
    [{ step_id: 'Bad Id', handler: 'general.noop' }, ['step_id']],
    [{ step_id: 'noop', handler: '', status: 'succeeded' }, ['handler', 'status']],
    [{ step_id: 'noop', handler: 'general.\u0000' }, ['handler']],
  ])('answers 422 with paths for %j', async (body, paths) => {
    const id = await heldRun(world);
    const problem = await problemOf(await create(id, body));
    expect(problem).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(problem.errors!.map((e) => e.path)).toEqual(paths);
  });
});

describe('PATCH /internal/step-runs/{step_run_id}', () => {
  it('moves pending -> running -> succeeded, stamping times, outputs and summary, each with its event; the outputs are read back', async () => {
    const id = await heldRun(world);
    const step = await json<StepRun>(await create(id, { step_id: 'noop', handler: 'general.noop', status: 'pending' }), 201);
    const running = await json<StepRun>(await move(step.id, { status: 'running' }));
    expect(running.started_at).toEqual(expect.any(String));
    const done = await json<StepRun>(await move(step.id, { status: 'succeeded', summary: 'fine', outputs: { n: 1 } }));
    expect(done).toMatchObject({ status: 'succeeded', summary: 'fine', outputs: { n: 1 }, started_at: running.started_at });
    expect(done.finished_at).toEqual(expect.any(String));
    expect((await stepEvents(id)).map((d) => [d.from, d.to])).toEqual([
      [null, 'pending'],
      ['pending', 'running'],
      ['running', 'succeeded'],
    ]);
    const failed = await json<StepRun>(await create(id, { step_id: 'other', handler: 'general.noop' }), 201);
    const error = { code: 'boom', message: 'it broke' };
    expect(await json<StepRun>(await move(failed.id, { status: 'failed', error }))).toMatchObject({ status: 'failed', error });
    const outputs = await json(await callback(world, 'GET', `/internal/runs/${id}/step-outputs`, { worker: null, attempt: null }));
    expect(outputs).toEqual({ steps: { noop: { n: 1 } } });
  });

  it('lets pending become skipped or cancelled, and running cancelled', async () => {
    const id = await heldRun(world);
    const a = await json<StepRun>(await create(id, { step_id: 'a', handler: 'general.noop', status: 'pending' }), 201);
    const b = await json<StepRun>(await create(id, { step_id: 'b', handler: 'general.noop', status: 'pending' }), 201);
    const c = await json<StepRun>(await create(id, { step_id: 'c', handler: 'general.noop' }), 201);
    expect((await json<StepRun>(await move(a.id, { status: 'skipped' }))).status).toBe('skipped');
    expect((await json<StepRun>(await move(b.id, { status: 'cancelled' }))).status).toBe('cancelled');
    expect((await json<StepRun>(await move(c.id, { status: 'cancelled' }))).status).toBe('cancelled');
  });

  it('refuses moves the state machine does not have, and any move of a finished step run, with 409 invalid_step_run_state', async () => {
    const id = await heldRun(world);
    const pending = await json<StepRun>(await create(id, { step_id: 'p', handler: 'general.noop', status: 'pending' }), 201);
    expect(await problemOf(await move(pending.id, { status: 'succeeded' }))).toEqual({ status: 409, code: 'invalid_step_run_state' });
    const running = await json<StepRun>(await create(id, { step_id: 'r', handler: 'general.noop' }), 201);
    expect(await problemOf(await move(running.id, { status: 'skipped' }))).toEqual({ status: 409, code: 'invalid_step_run_state' });
    await json(await move(running.id, { status: 'succeeded' }));
    for (const status of ['running', 'failed', 'succeeded', 'cancelled']) {
      expect(await problemOf(await move(running.id, { status }))).toEqual({ status: 409, code: 'invalid_step_run_state' });
    }
    expect((await knex()('step_runs').where({ id: running.id }).first()).status).toBe('succeeded');
  });

  it('lets the holder of a run its user cancelled end its steps, but not start one', async () => {
    const id = await heldRun(world);
    const running = await json<StepRun>(await create(id, { step_id: 'r', handler: 'general.noop' }), 201);
    const pending = await json<StepRun>(await create(id, { step_id: 'p', handler: 'general.noop', status: 'pending' }), 201);
    await fetch(`${world.daemon.url}/runs/${id}/cancel`, {
      method: 'POST',
      headers: { authorization: world.operator, 'x-org-id': 'acme' },
    });
    expect((await json<StepRun>(await move(running.id, { status: 'cancelled' }))).status).toBe('cancelled');
    expect(await problemOf(await move(pending.id, { status: 'running' }))).toEqual({ status: 409, code: 'invalid_run_state' });
  });

  it('is fenced on its run: another worker, or a step run of an older attempt, gets 409 run_not_held; unknown 404; bad body 422', async () => {
    const id = await heldRun(world);
    const step = await json<StepRun>(await create(id, { step_id: 'noop', handler: 'general.noop' }), 201);
    expect(await problemOf(await move(step.id, { status: 'succeeded' }, { worker: 'w2' }))).toEqual({ status: 409, code: 'run_not_held' });
    expect(await problemOf(await move(UNKNOWN_ID, { status: 'succeeded' }))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await problemOf(await move('nope', { status: 'succeeded' }))).toEqual({ status: 404, code: 'resource_not_found' });
    const bad = await problemOf(await move(step.id, { status: 'done', outputs: 3 }));
    expect(bad.errors!.map((e) => e.path)).toEqual(['status', 'outputs']);
    expect((await problemOf(await move(step.id, { status: 'succeeded' }, { worker: null }))).errors!.map((e) => e.path)).toEqual([
      'headers.x-worker-id',
    ]);
    await holdRun(knex(), id, 'w1', 2);
    expect(await problemOf(await move(step.id, { status: 'succeeded' }, { attempt: 2 }))).toEqual({ status: 409, code: 'run_not_held' });
    expect((await knex()('step_runs').where({ id: step.id }).first()).status).toBe('running');
  });
});

describe('GET /internal/runs/{run_id}/step-outputs', () => {
  it("reads only the current attempt's succeeded step runs", async () => {
    const id = await heldRun(world);
    const old = await json<StepRun>(await create(id, { step_id: 'a', handler: 'general.noop' }), 201);
    await json(await move(old.id, { status: 'succeeded', outputs: { from: 'attempt 1' } }));
    await holdRun(knex(), id, 'w1', 2);
    const path = `/internal/runs/${id}/step-outputs`;
    expect(await json(await callback(world, 'GET', path))).toEqual({ steps: {} });
    const now = await json<StepRun>(await create(id, { step_id: 'a', handler: 'general.noop' }, { attempt: 2 }), 201);
    await json(await move(now.id, { status: 'succeeded', outputs: { from: 'attempt 2' } }, { attempt: 2 }));
    expect(await json(await callback(world, 'GET', path))).toEqual({ steps: { a: { from: 'attempt 2' } } });
    expect((await callback(world, 'GET', `/internal/runs/${UNKNOWN_ID}/step-outputs`)).status).toBe(404);
  });
});
