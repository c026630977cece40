import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callback, heldRun, json } from './helpers/callbacks-fixtures.js';
import {
  authorize,
  basic,
  registryToken,
  revoke,
  startRegistryWorld,
  type RegistryToken,
  type RegistryWorld,
} from './helpers/registry-fixtures.js';

let world: RegistryWorld;
let live: RegistryToken;
const base = () => world.daemon.url;
const DIGEST = 'sha256:' + 'b'.repeat(64);
const OWN = 'orgs/acme/docker.io/library/alpine';
const audits = (eventType: string) => world.knex('audit_logs').where({ event_type: eventType });

/** Waits (bounded) until `check` holds: the cache forgets a token on a notification, which arrives just after the commit. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(await check()).toBe(true);
}

beforeAll(async () => {
  world = await startRegistryWorld();
  live = await registryToken(world);
});
afterAll(() => world?.close());

describe('GET /registry/authorize: the proxy secret', () => {
  it.each([
    ['without the secret header', null],
    ['with a wrong secret', 'wrong'],
  ])('answers 404 %s, as if the route did not exist', async (_what, secret) => {
    const answer = await authorize(base(), { method: 'GET', uri: `/v2/${OWN}/manifests/3.19`, authorization: basic(live.token), secret });
    expect(answer.status).toBe(404);
    expect(answer.code).toBe('not_found');
  });
});

describe('GET /registry/authorize: the credential', () => {
  it('answers 401 with a Basic challenge without a credential', async () => {
    const answer = await authorize(base(), { method: 'GET', uri: '/v2/' });
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/^Basic realm=/);
    expect(answer.code).toBe('unauthenticated');
  });

  it.each([
    ['a wrong token', () => basic('svc_run_' + 'x'.repeat(43))],
    ['a bearer token', () => `Bearer ${live.token}`],
    ['a personal-access-token-like password', () => basic('svc_pat_nope')],
  ])('answers 401 with a Basic challenge for %s', async (_what, credential) => {
    const answer = await authorize(base(), { method: 'GET', uri: '/v2/', authorization: credential() });
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/^Basic realm=/);
  });

  it('refuses an IaC state token (401): only registry tokens', async () => {
    const runId = await heldRun(world);
    await json(
      await callback(world, 'POST', `/internal/runs/${runId}/step-runs`, { body: { step_id: 'apply', handler: 'iac.apply' } }),
      201,
    );
    const state = await json<{ token: string }>(
      await callback(world, 'POST', `/internal/runs/${runId}/iac-state-access`, { body: { step_id: 'apply', state_name: 'net' } }),
      201,
    );
    expect((await authorize(base(), { method: 'GET', uri: '/v2/', authorization: basic(state.token) })).status).toBe(401);
  });

  it('answers 204 to /v2/ for a live registry token, whatever the username', async () => {
    expect((await authorize(base(), { method: 'GET', uri: '/v2/', authorization: basic(live.token, 'anything') })).status).toBe(204);
  });
});

describe('GET /registry/authorize: the decisions table', () => {
  it.each([
    ['GET', `/v2/${OWN}/manifests/3.19`, 204],
    ['HEAD', `/v2/${OWN}/blobs/${DIGEST}`, 204],
    ['GET', `/v2/orgs/acme/tools/lint/tags/list`, 204],
    ['GET', `/v2/orgs/commons/docker.io/library/debian/manifests/12`, 204],
    ['GET', `/v2/global/base/debian/manifests/12`, 204],
    ['GET', `/v2/orgs/globex/docker.io/library/alpine/manifests/3.19`, 403],
    ['POST', `/v2/${OWN}/blobs/uploads/`, 204],
    ['PATCH', `/v2/${OWN}/blobs/uploads/abc-123?_state=x`, 204],
    ['PUT', `/v2/${OWN}/blobs/uploads/abc-123?digest=${DIGEST}`, 204],
    ['PUT', `/v2/orgs/acme/tools/lint/manifests/v1`, 403],
    ['POST', `/v2/orgs/commons/docker.io/library/debian/blobs/uploads/`, 403],
    ['POST', `/v2/orgs/globex/docker.io/library/alpine/blobs/uploads/`, 403],
    ['POST', `/v2/global/base/debian/blobs/uploads/`, 403],
    ['POST', `/v2/${OWN}/blobs/uploads/?mount=${DIGEST}&from=global/base/debian`, 204],
    ['POST', `/v2/${OWN}/blobs/uploads/?mount=${DIGEST}&from=orgs/globex/x/y`, 403],
    ['DELETE', `/v2/${OWN}/manifests/${DIGEST}`, 403],
    ['DELETE', `/v2/${OWN}/blobs/${DIGEST}`, 403],
    ['GET', '/v2/_catalog', 403],
    ['GET', '/v2/orgs/acme/../globex/x/manifests/v1', 403],
  ])('%s %s -> %i', async (method, uri, status) => {
    const answer = await authorize(base(), { method, uri, authorization: basic(live.token) });
    expect(answer.status).toBe(status);
    if (status === 403) expect(answer.code).toBe('forbidden');
  });

  it('records refusals and a push publishing its manifest, never a pull', async () => {
    const before = { denied: (await audits('registry.denied')).length, pushed: (await audits('image.pushed')).length };
    const count = async () => (await world.knex('audit_logs').count({ n: '*' }))[0]!.n;
    const all = await count();
    expect((await authorize(base(), { method: 'GET', uri: `/v2/${OWN}/manifests/3.19`, authorization: basic(live.token) })).status).toBe(
      204,
    );
    expect(await count()).toBe(all);
    expect((await authorize(base(), { method: 'PUT', uri: `/v2/${OWN}/manifests/3.19`, authorization: basic(live.token) })).status).toBe(
      204,
    );
    expect((await authorize(base(), { method: 'GET', uri: '/v2/_catalog', authorization: basic(live.token) })).status).toBe(403);
    const pushed = await audits('image.pushed');
    expect(pushed.length).toBe(before.pushed + 1);
    expect(pushed.at(-1)).toMatchObject({ org_id: world.orgId, outcome: 'success', actor_sub: `run_token:${live.id}` });
    expect(pushed.at(-1)!.details_json).toMatchObject({ repository: OWN, reference: '3.19', run_id: live.runId, step_id: 'build' });
    expect((await audits('registry.denied')).length).toBe(before.denied + 1);
  });
});

describe('GET /registry/authorize: a token that died', () => {
  it('answers 401 once the token is revoked, though it was verified (and cached) before', async () => {
    const token = await registryToken(world);
    expect((await authorize(base(), { method: 'GET', uri: '/v2/', authorization: basic(token.token) })).status).toBe(204);
    await revoke(world, token);
    await eventually(
      async () => (await authorize(base(), { method: 'GET', uri: '/v2/', authorization: basic(token.token) })).status === 401,
    );
  });

  it('answers 401 once its step finishes', async () => {
    const token = await registryToken(world);
    expect((await authorize(base(), { method: 'GET', uri: '/v2/', authorization: basic(token.token) })).status).toBe(204);
    const finished = await callback(world, 'PATCH', `/internal/step-runs/${token.stepRunId}`, { body: { status: 'succeeded' } });
    expect(finished.status).toBe(200);
    await eventually(
      async () => (await authorize(base(), { method: 'GET', uri: '/v2/', authorization: basic(token.token) })).status === 401,
    );
  });

  it('answers 401 once its run ends, by plain SQL too', async () => {
    const token = await registryToken(world);
    expect((await authorize(base(), { method: 'GET', uri: '/v2/', authorization: basic(token.token) })).status).toBe(204);
    await world.knex('runs').where({ id: token.runId }).update({ status: 'failed', finished_at: world.knex.fn.now() });
    await eventually(
      async () => (await authorize(base(), { method: 'GET', uri: '/v2/', authorization: basic(token.token) })).status === 401,
    );
  });
});
