import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callback, heldRun, holdRun, json, problemOf, startCallbacksWorld, type CallbacksWorld } from './helpers/callbacks-fixtures.js';
import { UNKNOWN_ID } from './helpers/runs-fixtures.js';
import { digestOf } from '../src/daemon/auth/secrets.js';
import { actAsRunToken } from '../src/daemon/domains/run-tokens/run-token-verifier.js';
import type { AuditContext } from '../src/daemon/audit/audit-context.js';

let world: CallbacksWorld;
const knex = () => world.knex;
const verify = (token: string) => world.daemon.services.runTokens.verify(token);

beforeAll(async () => {
  world = await startCallbacksWorld({ SERVICE_RUN_TOKEN_TTL_SECONDS: '600' });
});
afterAll(async () => {
  await world?.close();
});

interface Minted {
  id: string;
  token: string;
  kind: string;
  run_id: string;
  step_id: string;
  attempt: number;
  scope: string;
  state_name: string | null;
  expires_at: string;
}

async function startStep(runId: string, stepId = 'apply', options: object = {}): Promise<string> {
  const body = { step_id: stepId, handler: 'iac.apply' };
  const created = await json<{ id: string }>(await callback(world, 'POST', `/internal/runs/${runId}/step-runs`, { body, ...options }), 201);
  return created.id;
}
function mintState(runId: string, body: unknown, options: object = {}): Promise<Response> {
  return callback(world, 'POST', `/internal/runs/${runId}/iac-state-access`, { body, ...options });
}
function mintRegistry(runId: string, body: unknown, options: object = {}): Promise<Response> {
  return callback(world, 'POST', `/internal/runs/${runId}/registry-access`, { body, ...options });
}
/** A held run with a running step `apply`, and a state token for `network` minted for it. */
async function stateToken(): Promise<{ runId: string; stepRunId: string; minted: Minted }> {
  const runId = await heldRun(world);
  const stepRunId = await startStep(runId);
  const minted = await json<Minted>(await mintState(runId, { step_id: 'apply', state_name: 'network' }), 201);
  return { runId, stepRunId, minted };
}

describe('POST /internal/runs/{run_id}/iac-state-access', () => {
  it('mints a token for one running step and one state: shown once, only its digest stored, audited', async () => {
    const before = Date.now();
    const { runId, minted } = await stateToken();
    expect(minted).toMatchObject({
      kind: 'iac_state',
      run_id: runId,
      step_id: 'apply',
      attempt: 1,
      scope: 'iac_state:network',
      state_name: 'network',
    });
    expect(minted.token).toMatch(/^svc_run_[A-Za-z0-9_-]{43}$/);
    const expires = Date.parse(minted.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    const row = await knex()('run_tokens').where({ id: minted.id }).first();
    expect(row).toMatchObject({ token_digest: digestOf(minted.token), org_id: world.orgId, revoked_at: null });
    expect(JSON.stringify(row)).not.toContain(minted.token);
    const [entry] = await knex()('audit_logs').where({ event_type: 'run_token.minted', resource_id: minted.id });
    expect(entry).toMatchObject({ org_id: world.orgId, action: 'internal:run_callbacks', resource_type: 'run_token' });
    expect(JSON.stringify(entry)).not.toContain(minted.token);
  });

  it('gives a shorter life when asked, never a longer one than the setting', async () => {
    const runId = await heldRun(world);
    await startStep(runId);
    const short = await json<Minted>(await mintState(runId, { step_id: 'apply', state_name: 'a', ttl_seconds: 60 }), 201);
    const long = await json<Minted>(await mintState(runId, { step_id: 'apply', state_name: 'b', ttl_seconds: 86_400 }), 201);
    expect(Date.parse(short.expires_at)).toBeLessThan(Date.now() + 61_000);
    expect(Date.parse(long.expires_at)).toBeLessThanOrEqual(Date.now() + 600_000);
  });

  it("refuses a step that is not running in the holder's attempt (409 step_not_running), and writes nothing", async () => {
    const runId = await heldRun(world);
    expect(await problemOf(await mintState(runId, { step_id: 'apply', state_name: 'n' }))).toEqual({
      status: 409,
      code: 'step_not_running',
    });
    const stepRunId = await startStep(runId);
    await json(await callback(world, 'PATCH', `/internal/step-runs/${stepRunId}`, { body: { status: 'succeeded' } }));
    expect(await problemOf(await mintState(runId, { step_id: 'apply', state_name: 'n' }))).toEqual({
      status: 409,
      code: 'step_not_running',
    });
    expect(await knex()('run_tokens').where({ run_id: runId })).toHaveLength(0);
  });

  it('is fenced: another worker 409 run_not_held, an unknown run 404, a bad body or state name 422, no worker token 401', async () => {
    const runId = await heldRun(world);
    await startStep(runId);
    const body = { step_id: 'apply', state_name: 'n' };
    expect(await problemOf(await mintState(runId, body, { worker: 'w9' }))).toEqual({ status: 409, code: 'run_not_held' });
    expect((await problemOf(await mintState(UNKNOWN_ID, body))).code).toBe('resource_not_found');
    const invalid = { status: 422, code: 'validation_failed' };
    expect(await problemOf(await mintState(runId, { step_id: 'apply', state_name: 'a/b' }))).toMatchObject(invalid);
    expect(await problemOf(await mintState(runId, { step_id: 'apply' }))).toMatchObject(invalid);
    expect(await problemOf(await mintState(runId, { ...body, extra: 1 }))).toMatchObject(invalid);
    expect(await problemOf(await mintState(runId, body, { token: null }))).toEqual({ status: 401, code: 'invalid_internal_token' });
    expect(await knex()('run_tokens').where({ run_id: runId })).toHaveLength(0);
  });
});

describe('POST /internal/runs/{run_id}/registry-access', () => {
  it("mints a registry token scoped to the run's organization", async () => {
    const runId = await heldRun(world);
    await startStep(runId, 'build');
    const minted = await json<Minted>(await mintRegistry(runId, { step_id: 'build' }), 201);
    expect(minted).toMatchObject({ kind: 'registry', scope: 'registry:step:acme', state_name: null, step_id: 'build' });
    expect(await verify(minted.token)).toMatchObject({
      kind: 'registry',
      orgSlug: 'acme',
      orgId: world.orgId,
      scope: 'registry:step:acme',
    });
  });
});

describe('verify', () => {
  it('answers the grant of a live token, and nothing for an unknown or malformed one', async () => {
    const { runId, minted } = await stateToken();
    expect(await verify(minted.token)).toEqual({
      tokenId: minted.id,
      runId,
      stepId: 'apply',
      attempt: 1,
      kind: 'iac_state',
      orgId: world.orgId,
      orgSlug: 'acme',
      scope: 'iac_state:network',
      stateName: 'network',
      expiresAt: new Date(minted.expires_at),
    });
    expect(await verify(`${minted.token.slice(0, -1)}${minted.token.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    expect(await verify('svc_run_short')).toBeUndefined();
  });

  it("refuses a token once its step finishes (revoked in the step run's transaction)", async () => {
    const { stepRunId, minted } = await stateToken();
    await json(await callback(world, 'PATCH', `/internal/step-runs/${stepRunId}`, { body: { status: 'failed' } }));
    expect(await verify(minted.token)).toBeUndefined();
    expect((await knex()('run_tokens').where({ id: minted.id }).first()).revoked_at).not.toBeNull();
  });

  it("leaves the tokens of the run's other steps alone when one step finishes", async () => {
    const { runId, minted } = await stateToken();
    const other = await startStep(runId, 'plan');
    await json(await callback(world, 'PATCH', `/internal/step-runs/${other}`, { body: { status: 'succeeded' } }));
    expect(await verify(minted.token)).toBeDefined();
  });

  it('refuses a token once its run ends', async () => {
    const { runId, minted } = await stateToken();
    await json(await callback(world, 'PATCH', `/internal/runs/${runId}`, { body: { status: 'succeeded' } }));
    expect(await verify(minted.token)).toBeUndefined();
  });

  it('refuses a token of an earlier attempt once the run is held in a new one', async () => {
    const { runId, minted } = await stateToken();
    await holdRun(knex(), runId, 'w2', 2);
    expect(await verify(minted.token)).toBeUndefined();
  });

  it('refuses an expired token', async () => {
    const { minted } = await stateToken();
    await knex()('run_tokens')
      .where({ id: minted.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect(await verify(minted.token)).toBeUndefined();
  });
});

describe('DELETE /internal/runs/{run_id}/iac-state-access/{token_id}', () => {
  it('revokes the token (204), audited; again 204 with no second entry', async () => {
    const { runId, minted } = await stateToken();
    const path = `/internal/runs/${runId}/iac-state-access/${minted.id}`;
    expect((await callback(world, 'DELETE', path)).status).toBe(204);
    expect(await verify(minted.token)).toBeUndefined();
    expect((await callback(world, 'DELETE', path)).status).toBe(204);
    expect(await knex()('audit_logs').where({ event_type: 'run_token.revoked', resource_id: minted.id })).toHaveLength(1);
  });

  it('answers 404 for another kind, another run or an unknown id, and 409 to another worker', async () => {
    const { runId, minted } = await stateToken();
    const other = await heldRun(world);
    expect((await problemOf(await callback(world, 'DELETE', `/internal/runs/${runId}/registry-access/${minted.id}`))).status).toBe(404);
    expect((await problemOf(await callback(world, 'DELETE', `/internal/runs/${other}/iac-state-access/${minted.id}`))).status).toBe(404);
    expect((await problemOf(await callback(world, 'DELETE', `/internal/runs/${runId}/iac-state-access/${UNKNOWN_ID}`))).status).toBe(404);
    expect(
      (await problemOf(await callback(world, 'DELETE', `/internal/runs/${runId}/iac-state-access/${minted.id}`, { worker: 'w9' }))).code,
    ).toBe('run_not_held');
    expect(await verify(minted.token)).toBeDefined();
  });
});

describe('DELETE /internal/runs/{run_id}/registry-access/{token_id}', () => {
  it('revokes a registry token', async () => {
    const runId = await heldRun(world);
    await startStep(runId, 'build');
    const minted = await json<Minted>(await mintRegistry(runId, { step_id: 'build' }), 201);
    expect((await callback(world, 'DELETE', `/internal/runs/${runId}/registry-access/${minted.id}`)).status).toBe(204);
    expect(await verify(minted.token)).toBeUndefined();
  });
});

describe('actAsRunToken', () => {
  it('makes every audit entry of the request name the token, its run and step, method run_token', async () => {
    const { runId, minted } = await stateToken();
    const grant = (await verify(minted.token))!;
    const context: AuditContext = {
      requestId: 'req-run-token-1',
      route: 'POST /iac-states/{name}/state',
      clientIp: '127.0.0.1',
      userAgent: undefined,
    };
    actAsRunToken(context, grant);
    const id = await world.daemon.services.audit.record(context, { eventType: 'test.run_token' });
    const row = await knex()('audit_logs').where({ id }).first();
    expect(row).toMatchObject({ org_id: world.orgId, actor_sub: `run_token:${minted.id}` });
    expect(row.details_json).toMatchObject({ auth_method: 'run_token', run_id: runId, step_id: 'apply', run_token_id: minted.id });
  });
});
