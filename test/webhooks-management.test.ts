import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditsOf,
  BARE,
  call,
  count,
  createEndpoint,
  createSecret,
  deliveriesOf,
  fire,
  seedFlow,
  startWorld,
  UNKNOWN_ID,
  type Endpoint,
  type World,
} from './helpers/webhooks-fixtures.js';
import { BACKEND } from './helpers/backend.js';
import { expectIfMatchHonoured, ifMatch } from './helpers/if-match.js';
import { behindRowLock } from './helpers/row-lock.js';

/**
 * Webhook endpoint management (`webhook:*`, `webhook_delivery:view`) over a real daemon: every field
 * rule, tenancy, the soft-delete life cycle, rotation, the configuration test, the delivery journal's
 * pages, and the flow delete refused while an endpoint targets the flow.
 */
let w: World;
const ids: Record<string, string> = {};
const KEY = 'acme-signing-key-1';
const KEY2 = 'acme-signing-key-2';

beforeAll(async () => {
  w = await startWorld();
  const db = w.knex();
  ids.deploy = await seedFlow(db, w.ids.acme!, { name: 'deploy', versions: [BARE, BARE] });
  ids.other = await seedFlow(db, w.ids.acme!, { name: 'other', versions: [BARE] });
  ids.draftOnly = await seedFlow(db, w.ids.acme!, { name: 'draft-only' });
  ids.gone = await seedFlow(db, w.ids.acme!, { name: 'gone', versions: [BARE], deleted: true });
  ids.theirs = await seedFlow(db, w.ids.globex!, { name: 'theirs', versions: [BARE] });
  ids.common = await seedFlow(db, w.ids.commons!, { name: 'common', versions: [BARE] });
  ids.key = await createSecret(w, 'alice', 'hooks/key-1', KEY);
  ids.key2 = await createSecret(w, 'alice', 'hooks/key-2', KEY2);
  ids.theirKey = await createSecret(w, 'bob', 'hooks/theirs', 'globex-key', 'globex');
});
afterAll(async () => {
  await w?.close();
});

const endpointCount = () => count(w.knex()('webhook_endpoints'));
const row = (id: string) => w.knex()('webhook_endpoints').where({ id }).first();

function paths(body: { errors?: { path: string }[] }): string[] {
  return (body.errors ?? []).map((e) => e.path).sort();
}

describe('POST /webhooks', () => {
  it('creates an endpoint with a generated URL-safe token and the resolved flow, and audits it without the token', async () => {
    const created = await call(w, 'dave', 'POST', '/webhooks', {
      name: '  CI pipeline  ',
      description: 'from CI',
      flow_id: ids.deploy,
      secret_id: ids.key,
    });
    expect(created.status).toBe(201);
    const endpoint = created.body;
    expect(endpoint).toMatchObject({
      org_id: w.ids.acme,
      name: 'CI pipeline',
      description: 'from CI',
      enabled: true,
      auth_mode: 'hmac_sha256',
      replay_window_seconds: 300,
      rate_limit_per_minute: 60,
      secret_id: ids.key,
      flow_id: ids.deploy,
      flow_name: 'deploy',
      flow_version: null,
      allowed_source_ips: null,
      payload_mapping_json: {},
      last_triggered_at: null,
      created_by: 'sub-dave',
      deleted_at: null,
    });
    expect(endpoint.path_token).toMatch(/^[A-Za-z0-9_-]{43,64}$/);
    expect(endpoint.trigger_path).toBe(`/hooks/${endpoint.path_token}`);
    expect(await row(endpoint.id)).toMatchObject({ path_token: endpoint.path_token, org_id: w.ids.acme, name: 'CI pipeline' });

    const second = await createEndpoint(w, { flow_id: ids.deploy, secret_id: ids.key });
    expect(second.path_token).not.toBe(endpoint.path_token);

    const [entry] = await auditsOf(w, 'entity.created', endpoint.id);
    expect(entry).toMatchObject({
      org_id: w.ids.acme,
      actor_sub: 'sub-dave',
      action: 'webhook:manage',
      resource_type: 'webhook_endpoint',
      outcome: 'success',
    });
    expect(entry.details_json.endpoint).toMatchObject({ id: endpoint.id, name: 'CI pipeline', flow_id: ids.deploy });
    expect(JSON.stringify(entry.details_json)).not.toContain(endpoint.path_token);
  });

  it('refuses a client-chosen path_token on create and update, writing nothing', async () => {
    const before = await endpointCount();
    const refused = await call(w, 'alice', 'POST', '/webhooks', { name: 'x', flow_id: ids.deploy, path_token: 'a'.repeat(43) });
    expect(refused).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect(paths(refused.body)).toEqual(['path_token']);
    expect(await endpointCount()).toBe(before);

    const endpoint = await createEndpoint(w, { flow_id: ids.deploy });
    const patched = await call(w, 'alice', 'PATCH', `/webhooks/${endpoint.id}`, { path_token: 'b'.repeat(43) });
    expect(patched).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect((await row(endpoint.id)).path_token).toBe(endpoint.path_token);
  });

  it.each([
    ['blank', '   '],
    ['129 characters', `${'abcdefgh '.repeat(14)}abc`],
    ['a 65-character word', `deploy ${'w'.repeat(65)}`],
    ['a control character', 'deploy\u0007hook'],
    ['a tab inside', 'deploy\thook'],
    ['not a string', 42],
  ])('refuses a name that is %s with 422 on name', async (_, name) => {
    const before = await endpointCount();
    const refused = await call(w, 'alice', 'POST', '/webhooks', { name, flow_id: ids.deploy });
    expect(refused).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect(paths(refused.body)).toContain('name');
    expect(await endpointCount()).toBe(before);
  });

  it('accepts a name at the limits: 128 characters, a 64-character word, emoji counted as one', async () => {
    const long = `${'w'.repeat(64)} ${'v'.repeat(63)}`;
    expect([...long]).toHaveLength(128);
    expect((await createEndpoint(w, { name: long, flow_id: ids.deploy })).name).toBe(long);
    const emoji = `${'🚀'.repeat(64)}`;
    expect((await createEndpoint(w, { name: emoji, flow_id: ids.deploy })).name).toBe(emoji);
  });

  it('requires name and flow_id, and refuses unknown fields and bad bounds', async () => {
    for (const body of [
      { flow_id: ids.deploy },
      { name: 'x' },
      { name: 'x', flow_id: 'not-a-uuid' },
      { name: 'x', flow_id: ids.deploy, auth_mode: 'basic' },
      { name: 'x', flow_id: ids.deploy, replay_window_seconds: 0 },
      { name: 'x', flow_id: ids.deploy, rate_limit_per_minute: 0 },
      { name: 'x', flow_id: ids.deploy, flow_version: 0 },
      { name: 'x', flow_id: ids.deploy, payload_mapping_json: [] },
      { name: 'x', flow_id: ids.deploy, target_type: 'flow' },
    ]) {
      expect((await call(w, 'alice', 'POST', '/webhooks', body)).body.code, JSON.stringify(body)).toBe('validation_failed');
    }
  });

  it('refuses a secret of another organization (or none at all) with 422 on secret_id', async () => {
    for (const secret of [ids.theirKey, UNKNOWN_ID]) {
      const refused = await call(w, 'alice', 'POST', '/webhooks', { name: 'x', flow_id: ids.deploy, secret_id: secret });
      expect(refused).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
      expect(paths(refused.body)).toEqual(['secret_id']);
    }
  });

  it.each([
    ['of another organization', () => ids.theirs!],
    ['soft-deleted', () => ids.gone!],
    ['unknown', () => UNKNOWN_ID],
  ])('refuses a flow that is %s with 422 on flow_id', async (_, flow) => {
    const refused = await call(w, 'alice', 'POST', '/webhooks', { name: 'x', flow_id: flow() });
    expect(refused).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect(paths(refused.body)).toEqual(['flow_id']);
  });

  it('accepts a flow of the shared organization, resolving its name', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.common });
    expect(endpoint).toMatchObject({ org_id: w.ids.acme, flow_id: ids.common, flow_name: 'common' });
  });

  it('accepts a pinned committed version and refuses a missing one with 422 on flow_version', async () => {
    expect(await createEndpoint(w, { flow_id: ids.deploy, flow_version: 2 })).toMatchObject({ flow_version: 2 });
    for (const [flow, version] of [
      [ids.deploy, 3],
      [ids.draftOnly, 1],
    ] as const) {
      const refused = await call(w, 'alice', 'POST', '/webhooks', { name: 'x', flow_id: flow, flow_version: version });
      expect(refused).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
      expect(paths(refused.body)).toEqual(['flow_version']);
    }
  });

  it('checks each allow-list entry, naming its index, and stores the list trimmed', async () => {
    const refused = await call(w, 'alice', 'POST', '/webhooks', {
      name: 'x',
      flow_id: ids.deploy,
      allowed_source_ips: ['10.0.0.0/8', '10.1', '2001:db8::/129', '192.168.1.1/24'],
    });
    expect(refused).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect(paths(refused.body)).toEqual(['allowed_source_ips[1]', 'allowed_source_ips[2]', 'allowed_source_ips[3]']);
    expect((await call(w, 'alice', 'POST', '/webhooks', { name: 'x', flow_id: ids.deploy, allowed_source_ips: [] })).status).toBe(422);

    const endpoint = await createEndpoint(w, { flow_id: ids.deploy, allowed_source_ips: [' 10.0.0.0/8', '2001:db8::/32', '192.0.2.7'] });
    expect(endpoint.allowed_source_ips).toEqual(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']);
    const cleared = await call(w, 'alice', 'PATCH', `/webhooks/${endpoint.id}`, { allowed_source_ips: null });
    expect(cleared.body.allowed_source_ips).toBeNull();
  });

  it('round-trips payload_mapping_json on create, read and update', async () => {
    const mapping = { params: { change: '$.ticket.id', nested: [1, { deep: true }] }, note: 'stored, never applied' };
    const endpoint = await createEndpoint(w, { flow_id: ids.deploy, payload_mapping_json: mapping });
    expect(endpoint.payload_mapping_json).toEqual(mapping);
    expect((await call(w, 'alice', 'GET', `/webhooks/${endpoint.id}`)).body.payload_mapping_json).toEqual(mapping);
    const patched = await call(w, 'alice', 'PATCH', `/webhooks/${endpoint.id}`, { payload_mapping_json: { replaced: true } });
    expect(patched.body.payload_mapping_json).toEqual({ replaced: true });
    expect((await row(endpoint.id)).payload_mapping_json).toEqual({ replaced: true });
  });

  it('is for operators: a viewer reads but may not create', async () => {
    expect((await call(w, 'carol', 'POST', '/webhooks', { name: 'x', flow_id: ids.deploy })).status).toBe(403);
    expect((await call(w, 'carol', 'GET', '/webhooks')).status).toBe(200);
  });
});

describe('GET /webhooks and GET /webhooks/{id}', () => {
  it("lists the organization's live endpoints as an array with flow_id and flow_name; include_deleted adds deleted ones", async () => {
    const kept = await createEndpoint(w, { name: 'kept', flow_id: ids.other });
    const dropped = await createEndpoint(w, { name: 'dropped', flow_id: ids.other });
    expect((await call(w, 'alice', 'DELETE', `/webhooks/${dropped.id}`)).status).toBe(204);
    await createEndpoint(w, { name: 'globex hook', flow_id: ids.theirs }, 'bob', 'globex');

    const list = await call(w, 'carol', 'GET', '/webhooks');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    const byId = new Map((list.body as { id: string }[]).map((item) => [item.id, item]));
    expect(byId.get(kept.id)).toMatchObject({ id: kept.id, name: 'kept', flow_id: ids.other, flow_name: 'other', enabled: true });
    expect(byId.has(dropped.id)).toBe(false);
    expect((list.body as { name: string }[]).some((item) => item.name === 'globex hook')).toBe(false);
    expect(JSON.stringify(list.body)).not.toContain(kept.path_token);

    const all = await call(w, 'carol', 'GET', '/webhooks?include_deleted=true');
    const deleted = (all.body as { id: string; deleted_at: string | null }[]).find((item) => item.id === dropped.id);
    expect(deleted?.deleted_at).toEqual(expect.any(String));
    expect((await call(w, 'carol', 'GET', '/webhooks?include_deleted=maybe')).status).toBe(422);
  });

  it("reads one endpoint in full; another organization's id, a deleted one or a non-UUID answer 404", async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.deploy, secret_id: ids.key });
    const read = await call(w, 'carol', 'GET', `/webhooks/${endpoint.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(endpoint);
    for (const path of [`/webhooks/${UNKNOWN_ID}`, '/webhooks/not-a-uuid']) {
      expect(await call(w, 'alice', 'GET', path)).toMatchObject({ status: 404, body: { code: 'resource_not_found' } });
    }
  });

  it("answers 404 to every route of another organization's endpoint, with no side effect", async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.deploy, secret_id: ids.key });
    const before = await row(endpoint.id);
    const audited = await count(w.knex()('audit_logs').where({ resource_id: endpoint.id }));
    const attempts: [string, string, unknown?][] = [
      ['GET', `/webhooks/${endpoint.id}`],
      ['PATCH', `/webhooks/${endpoint.id}`, { name: 'stolen', enabled: false }],
      ['DELETE', `/webhooks/${endpoint.id}`],
      ['POST', `/webhooks/${endpoint.id}/restore`],
      ['DELETE', `/webhooks/${endpoint.id}/permanent`],
      ['POST', `/webhooks/${endpoint.id}/rotate-secret`, { new_secret_id: ids.theirKey }],
      ['POST', `/webhooks/${endpoint.id}/test`],
      ['GET', `/webhooks/${endpoint.id}/deliveries`],
    ];
    for (const [method, path, body] of attempts) {
      expect(await call(w, 'bob', method, path, body, 'globex'), `${method} ${path}`).toMatchObject({
        status: 404,
        body: { code: 'resource_not_found' },
      });
    }
    expect(await row(endpoint.id)).toEqual(before);
    expect(await count(w.knex()('audit_logs').where({ resource_id: endpoint.id }))).toBe(audited);
  });
});

describe('PATCH /webhooks/{id}', () => {
  it('changes fields, audits the change, and refuses an auth_mode change', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.deploy, secret_id: ids.key });
    const patched = await call(w, 'dave', 'PATCH', `/webhooks/${endpoint.id}`, {
      name: 'renamed',
      rate_limit_per_minute: 120,
      replay_window_seconds: 60,
      description: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'renamed',
      rate_limit_per_minute: 120,
      replay_window_seconds: 60,
      description: null,
      updated_by: 'sub-dave',
      path_token: endpoint.path_token,
    });
    const [entry] = await auditsOf(w, 'entity.updated', endpoint.id);
    expect(entry).toMatchObject({ actor_sub: 'sub-dave', action: 'webhook:manage', resource_type: 'webhook_endpoint', org_id: w.ids.acme });
    expect(entry.details_json.changed).toEqual(['description', 'name', 'rate_limit_per_minute', 'replay_window_seconds']);

    const refused = await call(w, 'dave', 'PATCH', `/webhooks/${endpoint.id}`, { auth_mode: 'bearer' });
    expect(refused).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect(paths(refused.body)).toEqual(['auth_mode']);
    expect((await row(endpoint.id)).auth_mode).toBe('hmac_sha256');
    expect((await call(w, 'dave', 'PATCH', `/webhooks/${endpoint.id}`, { auth_mode: 'hmac_sha256' })).status).toBe(200);
  });

  it('answers its version as ETag and takes If-Match: a stale one is 412, nothing written', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.deploy, secret_id: ids.key });
    await expectIfMatchHonoured(w, {
      collection: 'webhooks',
      table: 'webhook_endpoints',
      id: endpoint.id,
      reader: 'carol',
      writer: 'dave',
      changes: [{ name: 'tagged-1' }, { name: 'late', rate_limit_per_minute: 5 }, { name: 'tagged-2' }, { name: 'tagged-3' }],
    });
  });

  it('keeps its ETag across a trigger (no edit): a PATCH with the tag read before it passes', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.other, secret_id: ids.key });
    const path = `/webhooks/${endpoint.id}`;
    const read = await call(w, 'dave', 'GET', path);
    expect(read.body.last_triggered_at).toBeNull();
    expect((await fire(w, endpoint, KEY, {})).status).toBe(202);
    const after = await call(w, 'dave', 'GET', path);
    expect(after.body.last_triggered_at).not.toBeNull();
    expect(after.headers.get('etag')).toBe(read.headers.get('etag'));
    const patched = await call(
      w,
      'dave',
      'PATCH',
      path,
      { description: 'edited after a trigger' },
      'acme',
      ifMatch(read.headers.get('etag')),
    );
    expect(patched.status).toBe(200);
    expect((await row(endpoint.id)).description).toBe('edited after a trigger');
  });

  it('retargets to another flow, dropping a pin not restated, and checks the new flow', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.deploy, flow_version: 2 });
    const retargeted = await call(w, 'alice', 'PATCH', `/webhooks/${endpoint.id}`, { flow_id: ids.other });
    expect(retargeted.body).toMatchObject({ flow_id: ids.other, flow_name: 'other', flow_version: null });
    const pinned = await call(w, 'alice', 'PATCH', `/webhooks/${endpoint.id}`, { flow_id: ids.deploy, flow_version: 1 });
    expect(pinned.body).toMatchObject({ flow_id: ids.deploy, flow_name: 'deploy', flow_version: 1 });
    const shared = await call(w, 'alice', 'PATCH', `/webhooks/${endpoint.id}`, { flow_id: ids.common });
    expect(shared.body).toMatchObject({ flow_id: ids.common, flow_name: 'common', flow_version: null });
    for (const body of [{ flow_id: ids.theirs }, { flow_version: 9 }]) {
      expect((await call(w, 'alice', 'PATCH', `/webhooks/${endpoint.id}`, body)).status, JSON.stringify(body)).toBe(422);
    }
    expect(await row(endpoint.id)).toMatchObject({ flow_id: ids.common, flow_version: null });
  });
});

describe.skipIf(BACKEND !== 'postgres')('PATCH /webhooks/{id} racing another change', () => {
  // Only PostgreSQL has a second session to hold the row while the PATCH waits for it.
  it('refuses a pin checked against a flow the endpoint left meanwhile (409 conflict), writing nothing', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.deploy });
    const pinned = await behindRowLock(
      w.knex(),
      'webhook_endpoints',
      endpoint.id,
      // Version 2 is one of deploy's; the PATCH checks it before it waits for the row.
      () => call(w, 'alice', 'PATCH', `/webhooks/${endpoint.id}`, { flow_version: 2 }),
      (trx) => trx('webhook_endpoints').where({ id: endpoint.id }).update({ flow_id: ids.other }),
    );
    expect(pinned).toMatchObject({ status: 409, body: { code: 'conflict' } });
    expect(await row(endpoint.id)).toMatchObject({ flow_id: ids.other, flow_version: null });
  });
});

describe.skipIf(BACKEND !== 'postgres')('PATCH /webhooks/{id} with If-Match racing another change', () => {
  // The PATCH reads the endpoint before it locks it: the tag must be held against the row as locked.
  it('is 412 when a change commits while it waits for the row, writing nothing', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.deploy });
    const etag = (await call(w, 'alice', 'GET', `/webhooks/${endpoint.id}`)).headers.get('etag');
    const late = await behindRowLock(
      w.knex(),
      'webhook_endpoints',
      endpoint.id,
      () => call(w, 'alice', 'PATCH', `/webhooks/${endpoint.id}`, { name: 'late' }, 'acme', ifMatch(etag)),
      (trx) => trx('webhook_endpoints').where({ id: endpoint.id }).update({ name: 'first', updated_at: trx.fn.now() }),
    );
    expect(late).toMatchObject({ status: 412, body: { code: 'precondition_failed' } });
    expect((await row(endpoint.id)).name).toBe('first');
  });
});

describe('the life cycle', () => {
  it('soft-deletes (trigger 404), restores (audited with the endpoint as it stands) and purges (admin only, journal gone)', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.other, secret_id: ids.key });
    expect((await fire(w, endpoint, KEY, {})).status).toBe(202);

    expect((await call(w, 'dave', 'DELETE', `/webhooks/${endpoint.id}`)).status).toBe(204);
    expect((await row(endpoint.id)).deleted_by).toBe('sub-dave');
    expect((await call(w, 'dave', 'GET', `/webhooks/${endpoint.id}`)).status).toBe(404);
    expect((await call(w, 'dave', 'DELETE', `/webhooks/${endpoint.id}`)).status).toBe(404);
    expect((await fire(w, endpoint, KEY, {})).body.code).toBe('resource_not_found');
    const [deleted] = await auditsOf(w, 'entity.deleted', endpoint.id);
    expect(deleted).toMatchObject({ actor_sub: 'sub-dave', action: 'webhook:manage', resource_type: 'webhook_endpoint' });

    const restored = await call(w, 'dave', 'POST', `/webhooks/${endpoint.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: endpoint.id, deleted_at: null, deleted_by: null, path_token: endpoint.path_token });
    const [entry] = await auditsOf(w, 'entity.restored', endpoint.id);
    expect(entry).toMatchObject({ actor_sub: 'sub-dave', action: 'webhook:manage', resource_type: 'webhook_endpoint' });
    expect(entry.details_json.endpoint).toMatchObject({ id: endpoint.id, deleted_at: null, flow_id: ids.other, flow_name: 'other' });
    expect((await call(w, 'dave', 'POST', `/webhooks/${endpoint.id}/restore`)).status).toBe(404);
    expect((await fire(w, endpoint, KEY, {})).status).toBe(202);

    // The trigger of the deleted endpoint found no endpoint, so nothing was journaled for it.
    expect(await deliveriesOf(w, endpoint.id)).toHaveLength(2);
    expect(await call(w, 'dave', 'DELETE', `/webhooks/${endpoint.id}/permanent`)).toMatchObject({
      status: 403,
      body: { code: 'forbidden' },
    });
    expect(await row(endpoint.id)).toBeDefined();
    expect((await call(w, 'alice', 'DELETE', `/webhooks/${endpoint.id}/permanent`)).status).toBe(204);
    expect(await row(endpoint.id)).toBeUndefined();
    expect(await deliveriesOf(w, endpoint.id)).toHaveLength(0);
    const [purged] = await auditsOf(w, 'entity.purged', endpoint.id);
    expect(purged).toMatchObject({ actor_sub: 'sub-alice', action: 'webhook:purge', resource_type: 'webhook_endpoint' });
    expect((await call(w, 'alice', 'DELETE', `/webhooks/${endpoint.id}/permanent`)).status).toBe(404);
  });

  it('purges a soft-deleted endpoint too', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.other });
    await call(w, 'alice', 'DELETE', `/webhooks/${endpoint.id}`);
    expect((await call(w, 'root', 'DELETE', `/webhooks/${endpoint.id}/permanent`)).status).toBe(204);
    expect(await row(endpoint.id)).toBeUndefined();
  });
});

describe('POST /webhooks/{id}/rotate-secret', () => {
  it('is admin only, a cutover (old key 401, new key 202 at once), and audited', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.other, secret_id: ids.key });
    expect((await fire(w, endpoint, KEY, {})).status).toBe(202);
    expect(await call(w, 'dave', 'POST', `/webhooks/${endpoint.id}/rotate-secret`, { new_secret_id: ids.key2 })).toMatchObject({
      status: 403,
      body: { code: 'forbidden' },
    });
    // The present secret in capitals is the present secret: compared as text it passed for another and was "rotated" to itself.
    const present = [{ new_secret_id: ids.key }, { new_secret_id: ids.key!.toUpperCase() }];
    for (const body of [{ new_secret_id: ids.theirKey }, ...present, {}, { new_secret_id: 'x' }]) {
      expect(await call(w, 'alice', 'POST', `/webhooks/${endpoint.id}/rotate-secret`, body), JSON.stringify(body)).toMatchObject({
        status: 422,
        body: { code: 'validation_failed' },
      });
    }
    expect((await row(endpoint.id)).secret_id).toBe(ids.key);

    const rotated = await call(w, 'alice', 'POST', `/webhooks/${endpoint.id}/rotate-secret`, { new_secret_id: ids.key2 });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: endpoint.id, secret_id: ids.key2, updated_by: 'sub-alice' });
    expect(await fire(w, endpoint, KEY, {})).toMatchObject({ status: 401, body: { code: 'webhook_auth_failed', reason: 'bad_signature' } });
    expect((await fire(w, endpoint, KEY2, {})).status).toBe(202);

    const entries = await auditsOf(w, 'entity.updated', endpoint.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor_sub: 'sub-alice', action: 'webhook:rotate_secret', resource_type: 'webhook_endpoint' });
    expect(entries[0].details_json.rotated_secret).toEqual({ from: ids.key, to: ids.key2 });
  });
});

describe('POST /webhooks/{id}/test', () => {
  it('checks the configuration, sends nothing, starts no run and journals nothing', async () => {
    const good = await createEndpoint(w, { flow_id: ids.deploy, secret_id: ids.key });
    const noSecret = await createEndpoint(w, { flow_id: ids.deploy });
    const uncommitted = await createEndpoint(w, { flow_id: ids.draftOnly, secret_id: ids.key });
    const runs = await count(w.knex()('runs'));
    const deliveries = await count(w.knex()('webhook_deliveries'));

    const ok = await call(w, 'dave', 'POST', `/webhooks/${good.id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ valid: true, checks: { secret_resolvable: true, flow_exists: true }, errors: [] });

    const missing = await call(w, 'dave', 'POST', `/webhooks/${noSecret.id}/test`);
    expect(missing.body).toMatchObject({ valid: false, checks: { secret_resolvable: false, flow_exists: true } });
    expect(missing.body.errors.map((e: { code: string }) => e.code)).toEqual(['secret_missing']);

    const draft = await call(w, 'dave', 'POST', `/webhooks/${uncommitted.id}/test`);
    expect(draft.body).toMatchObject({ valid: false, checks: { secret_resolvable: true, flow_exists: true } });
    expect(draft.body.errors.map((e: { code: string }) => e.code)).toEqual(['flow_not_committed']);

    expect(JSON.stringify([ok.body, missing.body, draft.body])).not.toContain(KEY);
    expect(await count(w.knex()('runs'))).toBe(runs);
    expect(await count(w.knex()('webhook_deliveries'))).toBe(deliveries);
  });
});

describe('GET /webhooks/{id}/deliveries', () => {
  it('pages the journal newest first with X-Total-Count; never a body', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.other, secret_id: ids.key });
    const accepted = await fire(w, endpoint, KEY, { secret_param: 'never-journaled' });
    expect(accepted.status).toBe(422); // the flow declares no input of that name: a refused, journaled delivery
    const second = await fire(w, endpoint, KEY, {});
    const third = await fire(w, endpoint, KEY, {}, { 'x-idempotency-key': 'evt-1' });
    expect([second.status, third.status]).toEqual([202, 202]);

    const first = await call(w, 'dave', 'GET', `/webhooks/${endpoint.id}/deliveries?limit=2`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total-count')).toBe('3');
    expect(first.body).toHaveLength(2);
    expect(first.body[0]).toMatchObject({
      id: third.body.delivery_id,
      webhook_endpoint_id: endpoint.id,
      idempotency_key: 'evt-1',
      signature_valid: true,
      response_status: 202,
      source_ip: '127.0.0.1',
    });
    expect(first.body[0].run_ids).toEqual([third.body.triggered_runs[0].run_id]);
    expect(first.body[0].request_body_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.body[1].id).toBe(second.body.delivery_id);
    const rest = await call(w, 'dave', 'GET', `/webhooks/${endpoint.id}/deliveries?limit=2&offset=2`);
    expect(rest.body).toHaveLength(1);
    expect(rest.body[0]).toMatchObject({ response_status: 422, run_ids: [], signature_valid: true });
    expect(JSON.stringify([first.body, rest.body])).not.toContain('never-journaled');

    const all = await call(w, 'dave', 'GET', `/webhooks/${endpoint.id}/deliveries`);
    expect(all.body).toHaveLength(3);
    for (const query of ['limit=0', 'limit=501', 'offset=-1', 'limit=x', 'other=1']) {
      expect((await call(w, 'dave', 'GET', `/webhooks/${endpoint.id}/deliveries?${query}`)).status, query).toBe(422);
    }
    expect((await call(w, 'carol', 'GET', `/webhooks/${endpoint.id}/deliveries`)).status).toBe(403);
  });
});

describe('deleting a flow an endpoint targets', () => {
  it('answers 409 listing the live endpoints with links, for delete and purge; a deleted endpoint no longer holds it', async () => {
    const flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'held', versions: [BARE] });
    const a = await createEndpoint(w, { name: 'a-hook', flow_id: flow });
    const b = await createEndpoint(w, { name: 'b-hook', flow_id: flow });
    for (const path of [`/flows/${flow}`, `/flows/${flow}/permanent`]) {
      const refused = await call(w, 'alice', 'DELETE', path);
      expect(refused, path).toMatchObject({ status: 409, body: { code: 'conflict' } });
      expect(refused.body.endpoints).toEqual([
        { id: a.id, name: 'a-hook', href: `/webhooks/${a.id}` },
        { id: b.id, name: 'b-hook', href: `/webhooks/${b.id}` },
      ]);
    }
    expect(await w.knex()('flows').where({ id: flow }).first()).toMatchObject({ deleted_at: null });

    await call(w, 'alice', 'DELETE', `/webhooks/${a.id}`);
    await call(w, 'alice', 'PATCH', `/webhooks/${b.id}`, { flow_id: ids.other });
    expect((await call(w, 'alice', 'DELETE', `/flows/${flow}`)).status).toBe(204);
  });
});
