import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callback, heldRun, holdRun, json, problemOf, startCallbacksWorld, type CallbacksWorld } from './helpers/callbacks-fixtures.js';
import { BARE, DEFINITION, seedFlow, UNKNOWN_ID } from './helpers/runs-fixtures.js';
import { seedOrg } from './helpers/seed.js';

let world: CallbacksWorld;
const knex = () => world.knex;
const flows: Record<string, string> = {};

beforeAll(async () => {
  world = await startCallbacksWorld();
  const db = knex();
  const commons = await seedOrg(db, 'commons');
  await db('organizations').where({ id: commons }).update({ is_shared: true });
  const globex = await seedOrg(db, 'globex');
  flows.child = await seedFlow(db, world.orgId, { name: 'child', versions: [BARE] });
  flows.strict = await seedFlow(db, world.orgId, { name: 'strict', versions: [DEFINITION] });
  flows.common = await seedFlow(db, commons, { name: 'common', versions: [BARE] });
  // The organization's own flow wins over the shared one of the same name.
  flows.sharedChild = await seedFlow(db, commons, { name: 'child', versions: [BARE] });
  flows.theirs = await seedFlow(db, globex, { name: 'theirs', versions: [BARE] });
  flows.gone = await seedFlow(db, world.orgId, { name: 'gone', versions: [BARE], deleted: true });
});
afterAll(async () => {
  await world?.close();
});

interface Run {
  id: string;
  org_id: string;
  status: string;
  flow_id: string;
  trigger_source: string;
  trigger_details: Record<string, unknown>;
  created_by: string | null;
  name: string;
}

function start(body: Record<string, unknown>, options: object = {}): Promise<Response> {
  return callback(world, 'POST', '/internal/runs', { body, ...options });
}

describe('POST /internal/runs', () => {
  it("admits a child run of a flow named in the parent's organization: trigger source flow, parent ids, the parent's creator", async () => {
    const parent = await heldRun(world);
    const response = await start({ parent_run_id: parent, parent_step_id: 'sub', flow_name: 'child', params: {} });
    const child = await json<Run>(response, 201);
    expect(response.headers.get('location')).toBe(`/runs/${child.id}`);
    expect(child).toMatchObject({
      org_id: world.orgId,
      status: 'queued',
      flow_id: flows.child,
      trigger_source: 'flow',
      trigger_details: { parent_run_id: parent, parent_step_id: 'sub' },
      created_by: 'sub-opal',
    });
    expect(await knex()('runs').where({ id: child.id }).first()).toMatchObject({
      parent_run_id: parent,
      parent_step_id: 'sub',
      parent_attempt: 1,
      trigger_source: 'flow',
    });
    const [entry] = await knex()('audit_logs').where({ event_type: 'run.started', resource_id: child.id });
    expect(entry).toMatchObject({ action: 'internal:run_callbacks', org_id: world.orgId });
    expect(entry.details_json).toMatchObject({ trigger_source: 'flow', trigger: { parent_run_id: parent, parent_step_id: 'sub' } });
  });

  it('answers a retried request with the same child (200), and a new parent attempt gets a child of its own', async () => {
    const parent = await heldRun(world);
    const body = { parent_run_id: parent, parent_step_id: 'sub', flow_id: flows.child };
    const first = await json<Run>(await start(body), 201);
    const again = await json<Run>(await start(body), 200);
    expect(again.id).toBe(first.id);
    const both = await Promise.all([start({ ...body, parent_step_id: 'twin' }), start({ ...body, parent_step_id: 'twin' })]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 201]);
    const [a, b] = await Promise.all(both.map((r) => r.json() as Promise<Run>));
    expect(a!.id).toBe(b!.id);
    expect(await knex()('runs').where({ parent_run_id: parent })).toHaveLength(2);
    await holdRun(knex(), parent, 'w1', 2);
    const next = await json<Run>(await start(body, { attempt: 2 }), 201);
    expect(next.id).not.toBe(first.id);
  });

  it('resolves a flow name in the shared organization when the organization has none', async () => {
    const parent = await heldRun(world);
    const child = await json<Run>(await start({ parent_run_id: parent, parent_step_id: 'sub', flow_name: 'common' }), 201);
    expect(child).toMatchObject({ flow_id: flows.common, org_id: world.orgId });
  });

  it.each([
    ['an unknown flow name', { flow_name: 'nothing' }, 404, 'flow_not_found'],
    ['a deleted flow', { flow_name: 'gone' }, 404, 'flow_not_found'],
    ["another organization's flow by name", { flow_name: 'theirs' }, 404, 'flow_not_found'],
    ["another organization's flow by id", { flow_id: 'theirs' }, 404, 'flow_not_found'],
    ['an unknown flow id', { flow_id: UNKNOWN_ID }, 404, 'flow_not_found'],
    ['a missing version', { flow_name: 'child', version: 9 }, 404, 'flow_version_not_found'],
    ['params the flow refuses', { flow_name: 'strict', params: { bogus: 1 } }, 422, 'validation_failed'],
  ])('refuses %s as admission does, writing nothing', async (_, ask, status, code) => {
    const parent = await heldRun(world);
    const body = { parent_run_id: parent, parent_step_id: 'sub', ...ask } as Record<string, unknown>;
    if (body.flow_id === 'theirs') body.flow_id = flows.theirs;
    expect(await problemOf(await start(body))).toMatchObject({ status, code });
    expect(await knex()('runs').where({ parent_run_id: parent })).toHaveLength(0);
  });

  it('is fenced on the parent: unknown 404, another holder 409 run_not_held, a parent not running 409 invalid_run_state', async () => {
    const parent = await heldRun(world);
    const body = { parent_run_id: parent, parent_step_id: 'sub', flow_name: 'child' };
    expect(await problemOf(await start({ ...body, parent_run_id: UNKNOWN_ID }))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await problemOf(await start(body, { worker: 'w2' }))).toEqual({ status: 409, code: 'run_not_held' });
    await knex()('runs').where({ id: parent }).update({ status: 'paused' });
    expect(await problemOf(await start(body))).toEqual({ status: 409, code: 'invalid_run_state' });
    expect((await start(body, { attempt: null })).status).toBe(422);
    expect(await knex()('runs').where({ parent_run_id: parent })).toHaveLength(0);
  });

  it.each([
    [{ parent_step_id: 'sub', flow_name: 'child' }, ['parent_run_id']],
    [{ parent_run_id: 'x', parent_step_id: 'sub', flow_name: 'child' }, ['parent_run_id']],
    [{ parent_run_id: UNKNOWN_ID, parent_step_id: 'sub' }, ['flow_id']],
    [{ parent_run_id: UNKNOWN_ID, parent_step_id: 'sub', flow_name: 'child', flow_id: UNKNOWN_ID }, ['flow_id']],
    [{ parent_run_id: UNKNOWN_ID, parent_step_id: 'sub', flow_name: 'child', targets: { r: ['x'] } }, ['targets.r[0]']],
  ])('answers 422 with paths for %j', async (body, paths) => {
    const problem = await problemOf(await start(body));
    expect(problem).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(problem.errors!.map((e) => e.path)).toEqual(paths);
  });
});
