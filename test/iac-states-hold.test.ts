import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callback, heldRun, json, problemOf, startCallbacksWorld, type CallbacksWorld } from './helpers/callbacks-fixtures.js';
import { basicWith, bearerOf, mintStateToken, stateBackend, stateDoc } from './helpers/iac-fixtures.js';
import { seedFlow } from './helpers/runs-fixtures.js';

/**
 * What a run's steps leave on a managed state: a lock its tool did not let go ends with the step, and
 * `iac.plan`'s `hold_until_apply` (the plan step's token minted with `hold_until_apply: true`) keeps the
 * state the run's from the plan until a later step of the run has written it and ended, or the run ends.
 */
let world: CallbacksWorld;
let admin: string;
const knex = () => world.knex;
const { backend, lock, unlock, write } = stateBackend(() => world);

beforeAll(async () => {
  world = await startCallbacksWorld();
  admin = await bearerOf(world, 'ada', 'admin');
});
afterAll(async () => {
  await world?.close();
});

/** A running step of `runId` and a state token minted for it; `hold` asks for the hold. */
async function stepToken(runId: string, stepId: string, stateName: string, hold = false) {
  const handler = stepId === 'plan' ? 'iac.plan' : 'iac.apply';
  const step = await json<{ id: string }>(
    await callback(world, 'POST', `/internal/runs/${runId}/step-runs`, { body: { step_id: stepId, handler } }),
    201,
  );
  const body = { step_id: stepId, state_name: stateName, ...(hold ? { hold_until_apply: true } : {}) };
  const minted = await callback(world, 'POST', `/internal/runs/${runId}/iac-state-access`, { body });
  return { stepRunId: step.id, minted };
}

async function basicOf(minted: Response): Promise<string> {
  return basicWith((await json<{ token: string }>(minted, 201)).token);
}

const endStep = async (stepRunId: string) =>
  expect((await callback(world, 'PATCH', `/internal/step-runs/${stepRunId}`, { body: { status: 'succeeded' } })).status).toBe(200);

const stateRow = (name: string) =>
  knex()('iac_states').where({ org_id: world.orgId, name }).first('lock_id', 'lock_run_id', 'hold_run_id', 'hold_step_id');

const auditOf = (eventType: string, name: string) =>
  knex()('audit_logs').where({ event_type: eventType }).whereRaw("details_json->>'name' = ?", [name]).orderBy('ts');

describe('a step of a run', () => {
  it('lets go of a lock its tool left when it ends (audited); another run may then lock the state', async () => {
    const t = await mintStateToken(world, 'left-locked');
    expect((await lock(t, 'left-locked', 'crashed')).status).toBe(200);
    await endStep(t.stepRunId);
    expect(await stateRow('left-locked')).toMatchObject({ lock_id: null, lock_run_id: null });
    const [released] = await auditOf('iac_state.lock_released', 'left-locked');
    expect(released).toMatchObject({ actor_sub: null, outcome: 'success' });
    expect(released.details_json).toMatchObject({ lock_id: 'crashed', run_id: t.runId, step_id: 'apply', reason: 'step_ended' });
    const next = await mintStateToken(world, 'left-locked');
    expect((await lock(next, 'left-locked', 'next')).status).toBe(200);
  });
});

describe('hold_until_apply', () => {
  it('keeps the state the run’s from its plan until a later step has written it and ended', async () => {
    const runId = await heldRun(world);
    const plan = await stepToken(runId, 'plan', 'net', true);
    const planAuth = await basicOf(plan.minted);
    const view = await fetch(`${world.daemon.url}/iac-states/net`, { headers: { authorization: admin, 'x-org-id': 'acme' } });
    expect(await view.json()).toMatchObject({ name: 'net', lock: null, hold: { run_id: runId, step_id: 'plan' } });
    expect((await lock(planAuth, 'net', 'plan-lock')).status).toBe(200);
    expect((await unlock(planAuth, 'net', 'plan-lock')).status).toBe(200);

    // Unlocked, yet held: another run, a user's lock and an import are all refused, and nothing is written.
    const other = await mintStateToken(world, 'net');
    expect(await problemOf(await lock(other, 'net', 'other'))).toEqual({ status: 423, code: 'iac_state_locked' });
    expect(await problemOf(await write(other, 'net', stateDoc(1)))).toEqual({ status: 423, code: 'iac_state_locked' });
    expect(await problemOf(await lock(admin, 'net', 'user'))).toEqual({ status: 423, code: 'iac_state_locked' });
    const imported = await backend(admin, 'POST', 'net', 'import', stateDoc(1));
    expect(await problemOf(imported)).toEqual({ status: 423, code: 'iac_state_locked' });
    await endStep(plan.stepRunId);
    expect(await problemOf(await lock(other, 'net', 'other'))).toEqual({ status: 423, code: 'iac_state_locked' });

    // The apply: its own lock and write pass; the hold lasts until its step ends.
    const apply = await stepToken(runId, 'apply', 'net');
    const applyAuth = await basicOf(apply.minted);
    expect((await lock(applyAuth, 'net', 'apply-lock')).status).toBe(200);
    expect((await write(applyAuth, 'net', stateDoc(1), 'apply-lock')).status).toBe(200);
    expect((await unlock(applyAuth, 'net', 'apply-lock')).status).toBe(200);
    expect(await stateRow('net')).toMatchObject({ hold_run_id: runId, hold_step_id: 'plan' });
    await endStep(apply.stepRunId);
    expect(await stateRow('net')).toMatchObject({ hold_run_id: null, hold_step_id: null });
    expect((await lock(other, 'net', 'other')).status).toBe(200);

    expect((await auditOf('iac_state.held', 'net'))[0].details_json).toMatchObject({ run_id: runId, step_id: 'plan' });
    const [released] = await auditOf('iac_state.hold_released', 'net');
    expect(released.details_json).toMatchObject({ run_id: runId, step_id: 'plan', applied_by_step_id: 'apply', reason: 'applied' });
    expect(await knex()('iac_state_versions').where({ run_id: runId, step_id: 'apply' })).toHaveLength(1);
  });

  it('ends with the iac.apply of its plan (plan_step), even one that wrote nothing; not with an apply of another plan', async () => {
    const step = (id: string, handler: string, config: Record<string, unknown>) => ({ id, handler, config });
    const definition = {
      steps: [
        step('plan', 'iac.plan', { state_name: 'quiet', hold_until_apply: true }),
        step('apply_other', 'iac.apply', { plan_step: 'elsewhere' }),
        step('apply', 'iac.apply', { plan_step: 'plan' }),
      ],
      edges: [
        { from: 'plan', to: 'apply_other' },
        { from: 'apply_other', to: 'apply' },
      ],
      inputs: [],
      target_roles: [],
    };
    const flowId = await seedFlow(knex(), world.orgId, { name: 'plan-then-apply', versions: [definition] });
    const runId = await heldRun(world, flowId);
    const plan = await stepToken(runId, 'plan', 'quiet', true);
    await basicOf(plan.minted);
    await endStep(plan.stepRunId);

    const other = await stepToken(runId, 'apply_other', 'quiet');
    await basicOf(other.minted);
    await endStep(other.stepRunId);
    expect(await stateRow('quiet')).toMatchObject({ hold_run_id: runId, hold_step_id: 'plan' });

    // Nothing to change: the apply locks and unlocks but writes no state; its end still ends the hold.
    const apply = await stepToken(runId, 'apply', 'quiet');
    const applyAuth = await basicOf(apply.minted);
    expect((await lock(applyAuth, 'quiet', 'apply-lock')).status).toBe(200);
    expect((await unlock(applyAuth, 'quiet', 'apply-lock')).status).toBe(200);
    await endStep(apply.stepRunId);
    expect(await stateRow('quiet')).toMatchObject({ hold_run_id: null, hold_step_id: null });
    const [released] = await auditOf('iac_state.hold_released', 'quiet');
    expect(released.details_json).toMatchObject({ run_id: runId, step_id: 'plan', applied_by_step_id: 'apply', reason: 'applied' });
    expect(await knex()('iac_state_versions').where({ run_id: runId })).toHaveLength(0);
  });

  it('outlasts a step of the run that neither wrote the state nor is its plan’s apply', async () => {
    const runId = await heldRun(world);
    await stepToken(runId, 'plan', 'idle', true).then((s) => basicOf(s.minted));
    const look = await stepToken(runId, 'apply', 'idle');
    await basicOf(look.minted);
    await endStep(look.stepRunId);
    expect(await stateRow('idle')).toMatchObject({ hold_run_id: runId });
  });

  it('is refused (423) while another run holds the state or another holder has it locked; nothing is minted', async () => {
    const holder = await heldRun(world);
    await basicOf((await stepToken(holder, 'plan', 'taken', true)).minted);
    const second = await heldRun(world);
    const refused = await stepToken(second, 'plan', 'taken', true);
    expect(await problemOf(refused.minted)).toEqual({ status: 423, code: 'iac_state_locked' });

    expect((await lock(admin, 'user-locked', 'user')).status).toBe(200);
    const third = await heldRun(world);
    expect(await problemOf((await stepToken(third, 'plan', 'user-locked', true)).minted)).toEqual({
      status: 423,
      code: 'iac_state_locked',
    });
    expect(await knex()('run_tokens').whereIn('run_id', [second, third])).toHaveLength(0);
    expect(await stateRow('user-locked')).toMatchObject({ lock_id: 'user', hold_run_id: null });
  });

  it('ends with its run (audited), and an admin’s force-unlock ends it', async () => {
    const ending = await heldRun(world);
    await basicOf((await stepToken(ending, 'plan', 'run-ends', true)).minted);
    expect((await callback(world, 'PATCH', `/internal/runs/${ending}`, { body: { status: 'failed' } })).status).toBe(200);
    expect(await stateRow('run-ends')).toMatchObject({ hold_run_id: null });
    const [released] = await auditOf('iac_state.hold_released', 'run-ends');
    expect(released).toMatchObject({ actor_sub: null });
    expect(released.details_json).toMatchObject({ run_id: ending, step_id: 'plan', reason: 'run_ended', run_status: 'failed' });

    const stuck = await heldRun(world);
    await basicOf((await stepToken(stuck, 'plan', 'forced-hold', true)).minted);
    const forced = await fetch(`${world.daemon.url}/iac-states/forced-hold/force-unlock`, {
      method: 'POST',
      headers: { authorization: admin, 'x-org-id': 'acme' },
    });
    expect(forced.status).toBe(200);
    expect(await forced.json()).toMatchObject({ lock: null, hold: null });
    const [entry] = await auditOf('iac_state.force_unlocked', 'forced-hold');
    expect(entry.details_json).toMatchObject({ lock_id: null, hold: { run_id: stuck, step_id: 'plan' } });
  });

  it('refuses a hold_until_apply that is not a boolean (422), minting nothing', async () => {
    const runId = await heldRun(world);
    await json(await callback(world, 'POST', `/internal/runs/${runId}/step-runs`, { body: { step_id: 'plan', handler: 'iac.plan' } }), 201);
    const body = { step_id: 'plan', state_name: 'typed', hold_until_apply: 'yes' };
    expect(await problemOf(await callback(world, 'POST', `/internal/runs/${runId}/iac-state-access`, { body }))).toMatchObject({
      status: 422,
      code: 'validation_failed',
    });
    expect(await knex()('run_tokens').where({ run_id: runId })).toHaveLength(0);
  });
});
