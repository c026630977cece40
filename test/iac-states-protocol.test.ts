import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callback, problemOf, startCallbacksWorld, type CallbacksWorld } from './helpers/callbacks-fixtures.js';
import { basicWith, bearerOf, lockInfo, md5, mintStateToken, stateBackend, stateDoc } from './helpers/iac-fixtures.js';

/**
 * The http backend protocol as Terraform 1.11 speaks it (next-domains.md, section 4), replayed with a run
 * token over HTTP Basic: GET, LOCK (POST), a competing LOCK, writes with `?ID=` and Content-MD5, UNLOCK
 * (DELETE) with the lock info, and the empty-body UNLOCK of `terraform force-unlock`.
 */
let world: CallbacksWorld;
let admin: string;
const knex = () => world.knex;

beforeAll(async () => {
  world = await startCallbacksWorld();
  admin = await bearerOf(world, 'ada', 'admin');
});
afterAll(async () => {
  await world?.close();
});

const url = (name: string, tail: string) => `${world.daemon.url}/iac-states/${name}/${tail}`;
const { backend, lock, unlock, write } = stateBackend(() => world);

describe('the http backend, replayed as Terraform sends it', () => {
  it('plans and applies: GET (none), LOCK, GET, POST ?ID= with Content-MD5, UNLOCK, then GET reads it back', async () => {
    const t = await mintStateToken(world, 'network');
    expect((await backend(t.basic, 'GET', 'network', 'state')).status).toBe(204);
    const locked = await lock(t, 'network', 'lock-1');
    expect(locked.status).toBe(200);
    expect(await locked.json()).toMatchObject({
      name: 'network',
      lock: { id: 'lock-1', operation: 'OperationTypeApply', run_id: t.runId, step_id: 'apply' },
    });
    expect((await backend(t.basic, 'GET', 'network', 'state')).status).toBe(204);
    const doc = stateDoc(1);
    const written = await write(t, 'network', doc, 'lock-1');
    expect(written.status).toBe(200);
    expect(await written.json()).toMatchObject({
      version: 1,
      serial: 1,
      source: 'backend',
      size: Buffer.byteLength(doc),
      run_id: t.runId,
      step_id: 'apply',
    });
    expect((await unlock(t, 'network', 'lock-1')).status).toBe(200);
    const read = await backend(t.basic, 'GET', 'network', 'state');
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await read.text()).toBe(doc);
  });

  it("answers a competing LOCK with 423 and the holder's lock info, which Terraform prints as ID=<holder>", async () => {
    const t = await mintStateToken(world, 'race');
    expect((await lock(t, 'race', 'first')).status).toBe(200);
    const second = await lock(t, 'race', 'second');
    expect(second.status).toBe(423);
    const body = (await second.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      code: 'iac_state_locked',
      ID: 'first',
      Who: 'tf@host',
      Operation: 'OperationTypeApply',
      Created: '2026-11-27T12:00:00.000000000Z',
    });
    // The holder asking again keeps its lock.
    expect((await lock(t, 'race', 'first')).status).toBe(200);
  });

  it('refuses a write naming another lock (409 with the holder), a write without ?ID= while locked (423), and a wrong Content-MD5 (400); none is stored', async () => {
    const t = await mintStateToken(world, 'guarded');
    expect((await lock(t, 'guarded', 'mine')).status).toBe(200);
    const wrongId = await write(t, 'guarded', stateDoc(1), 'theirs');
    expect(await problemOf(wrongId.clone())).toEqual({ status: 409, code: 'iac_lock_mismatch' });
    expect(await wrongId.json()).toMatchObject({ ID: 'mine' });
    expect(await problemOf(await write(t, 'guarded', stateDoc(1)))).toEqual({ status: 423, code: 'iac_state_locked' });
    expect(await problemOf(await write(t, 'guarded', stateDoc(1), 'mine', { 'content-md5': md5('something else') }))).toEqual({
      status: 400,
      code: 'content_md5_mismatch',
    });
    expect(await problemOf(await write(t, 'guarded', '[1, 2]', 'mine'))).toEqual({ status: 422, code: 'invalid_state_document' });
    expect(await problemOf(await write(t, 'guarded', '{"serial": "x"}', 'mine'))).toEqual({ status: 422, code: 'invalid_state_document' });
    const state = await knex()('iac_states').where({ name: 'guarded' }).first();
    expect(await knex()('iac_state_versions').where({ state_id: state.id })).toHaveLength(0);
  });

  it('refuses an UNLOCK naming another lock (409 with the holder) and keeps the lock', async () => {
    const t = await mintStateToken(world, 'held');
    expect((await lock(t, 'held', 'mine')).status).toBe(200);
    const wrong = await unlock(t, 'held', 'theirs');
    expect(wrong.status).toBe(409);
    expect(await wrong.json()).toMatchObject({ code: 'iac_lock_mismatch', ID: 'mine' });
    expect((await knex()('iac_states').where({ name: 'held' }).first()).lock_id).toBe('mine');
  });

  it('treats an empty-body UNLOCK as a force: never for a run token, not for an operator, yes for an admin (iac_state:manage)', async () => {
    const t = await mintStateToken(world, 'stuck');
    expect((await lock(t, 'stuck', 'gone-away')).status).toBe(200);
    expect(await problemOf(await unlock(t, 'stuck', undefined))).toEqual({ status: 403, code: 'force_unlock_forbidden' });
    expect(await problemOf(await unlock(world.operator, 'stuck', undefined))).toEqual({ status: 403, code: 'force_unlock_forbidden' });
    expect((await knex()('iac_states').where({ name: 'stuck' }).first()).lock_id).toBe('gone-away');
    const forced = await unlock(admin, 'stuck', undefined);
    expect(forced.status).toBe(200);
    expect(await forced.json()).toMatchObject({ name: 'stuck', lock: null });
    const [entry] = await knex()('audit_logs').where({ event_type: 'iac_state.force_unlocked' });
    expect(entry.details_json).toMatchObject({ name: 'stuck', lock_id: 'gone-away' });
  });

  it('audits writes and locks as the run token, with its run and step', async () => {
    const t = await mintStateToken(world, 'audited');
    expect((await lock(t, 'audited', 'l')).status).toBe(200);
    expect((await write(t, 'audited', stateDoc(3), 'l')).status).toBe(200);
    const entries = await knex()('audit_logs')
      .whereIn('event_type', ['iac_state.locked', 'iac_state.written'])
      .where({ org_id: world.orgId });
    const mine = entries.filter((e) => e.details_json.name === 'audited');
    expect(mine).toHaveLength(2);
    for (const entry of mine) {
      expect(entry.actor_sub).toBe(`run_token:${t.id}`);
      expect(entry.details_json).toMatchObject({ auth_method: 'run_token', run_id: t.runId, step_id: 'apply', run_token_id: t.id });
    }
  });
});

describe('a lock held by a run', () => {
  it('is released when the run ends, with an audit entry; a lock of another run or of a user stays', async () => {
    const ending = await mintStateToken(world, 'held-by-run');
    const going = await mintStateToken(world, 'held-by-other-run');
    expect((await lock(ending, 'held-by-run', 'lock-r1')).status).toBe(200);
    expect((await lock(going, 'held-by-other-run', 'lock-r2')).status).toBe(200);
    expect((await lock(admin, 'held-by-user', 'lock-u')).status).toBe(200);

    const ended = await callback(world, 'PATCH', `/internal/runs/${ending.runId}`, { body: { status: 'failed' } });
    expect(ended.status).toBe(200);

    const states = await knex()('iac_states')
      .whereIn('name', ['held-by-run', 'held-by-other-run', 'held-by-user'])
      .select('name', 'lock_id', 'lock_run_id', 'lock_json');
    const byName = Object.fromEntries(states.map((row: { name: string }) => [row.name, row]));
    expect(byName['held-by-run']).toMatchObject({ lock_id: null, lock_run_id: null, lock_json: null });
    expect(byName['held-by-other-run']).toMatchObject({ lock_id: 'lock-r2', lock_run_id: going.runId });
    expect(byName['held-by-user']).toMatchObject({ lock_id: 'lock-u', lock_run_id: null });

    const released = await knex()('audit_logs').where({ event_type: 'iac_state.lock_released' });
    expect(released).toHaveLength(1);
    expect(released[0]).toMatchObject({ resource_type: 'iac_state', actor_sub: null, outcome: 'success' });
    expect(released[0].details_json).toMatchObject({
      name: 'held-by-run',
      lock_id: 'lock-r1',
      run_id: ending.runId,
      step_id: 'apply',
      reason: 'run_ended',
      run_status: 'failed',
    });
    // Another holder may take it at once.
    expect((await lock(admin, 'held-by-run', 'lock-next')).status).toBe(200);
  });
});

describe('run tokens on the backend', () => {
  it('answers 401 invalid_run_token with a Basic challenge for a wrong, revoked or ended token', async () => {
    const wrong = await backend(basicWith('svc_run_nope'), 'GET', 'x', 'state');
    expect(await problemOf(wrong.clone())).toEqual({ status: 401, code: 'invalid_run_token' });
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="svc"');
    const t = await mintStateToken(world, 'x');
    expect((await backend(t.basic, 'GET', 'x', 'state')).status).toBe(204);
    expect((await callback(world, 'PATCH', `/internal/step-runs/${t.stepRunId}`, { body: { status: 'succeeded' } })).status).toBe(200);
    expect(await problemOf(await backend(t.basic, 'GET', 'x', 'state'))).toEqual({ status: 401, code: 'invalid_run_token' });
    const r = await mintStateToken(world, 'x');
    expect((await callback(world, 'DELETE', `/internal/runs/${r.runId}/iac-state-access/${r.id}`)).status).toBe(204);
    expect(await problemOf(await backend(r.basic, 'POST', 'x', 'lock', JSON.stringify(lockInfo('z'))))).toEqual({
      status: 401,
      code: 'invalid_run_token',
    });
  });

  it('acts only on its own state (403 run_token_scope) and only on the backend routes (Basic refused elsewhere)', async () => {
    const t = await mintStateToken(world, 'mine');
    expect(await problemOf(await backend(t.basic, 'GET', 'other', 'state'))).toEqual({ status: 403, code: 'run_token_scope' });
    expect(await problemOf(await lock(t, 'other', 'l'))).toEqual({ status: 403, code: 'run_token_scope' });
    const imported = await fetch(url('mine', 'import'), {
      method: 'POST',
      headers: { authorization: t.basic, 'content-type': 'application/json' },
      body: stateDoc(1),
    });
    expect(await problemOf(imported)).toEqual({ status: 401, code: 'basic_auth_refused' });
    const listed = await fetch(`${world.daemon.url}/iac-states`, { headers: { authorization: t.basic } });
    expect(await problemOf(listed)).toEqual({ status: 401, code: 'basic_auth_refused' });
    expect(await knex()('iac_states').where({ name: 'other' })).toHaveLength(0);
  });

  it('is governed by the operator-level actions: raising iac_state:write to admin refuses the token', async () => {
    const t = await mintStateToken(world, 'governed');
    const platformAdmin = await bearerOf(world, 'root', undefined, ['admin']);
    const raise = await fetch(`${world.daemon.url}/settings/permissions/override`, {
      method: 'PUT',
      headers: { authorization: platformAdmin, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'POST', path: '/iac-states/{name}/lock', policy: 'admin' }),
    });
    expect(raise.status).toBeLessThan(300);
    try {
      expect(await problemOf(await lock(t, 'governed', 'l'))).toEqual({ status: 403, code: 'forbidden' });
    } finally {
      await fetch(`${world.daemon.url}/settings/permissions/override`, {
        method: 'DELETE',
        headers: { authorization: platformAdmin, 'content-type': 'application/json' },
        body: JSON.stringify({ method: 'POST', path: '/iac-states/{name}/lock' }),
      });
    }
  });
});
