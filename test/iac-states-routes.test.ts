import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemOf, startCallbacksWorld, type CallbacksWorld } from './helpers/callbacks-fixtures.js';
import { lockInfo, md5, mintStateToken, stateDoc } from './helpers/iac-fixtures.js';
import { seedOrg, seedUser } from './helpers/seed.js';

/** The states' routes beside the backend: view, read, import, rollback, force-unlock, delete; encryption at rest; tenancy. */
let world: CallbacksWorld;
let viewer: string;
let admin: string;
let outsider: string;
const knex = () => world.knex;

async function bearer(username: string, memberships: { orgSlug: string; role: string }[]): Promise<string> {
  await seedUser(knex(), { sub: `sub-${username}`, username }, memberships);
  return `Bearer ${await world.idp.mintAccessToken({ sub: `sub-${username}`, username, realmRoles: [] })}`;
}

beforeAll(async () => {
  world = await startCallbacksWorld();
  await seedOrg(knex(), 'globex');
  viewer = await bearer('vera', [{ orgSlug: 'acme', role: 'viewer' }]);
  admin = await bearer('ada', [{ orgSlug: 'acme', role: 'admin' }]);
  outsider = await bearer('olga', [{ orgSlug: 'globex', role: 'admin' }]);
});
afterAll(async () => {
  await world?.close();
});

function call(auth: string, method: string, path: string, body?: string | object, headers: Record<string, string> = {}): Promise<Response> {
  const sent: Record<string, string> = { authorization: auth, 'x-org-id': 'acme', ...headers };
  let text: string | undefined;
  if (body !== undefined) {
    sent['content-type'] = 'application/json';
    text = typeof body === 'string' ? body : JSON.stringify(body);
  }
  return fetch(`${world.daemon.url}${path}`, { method, headers: sent, body: text });
}
const importDoc = (name: string, doc: string, headers: Record<string, string> = {}) =>
  call(world.operator, 'POST', `/iac-states/${name}/import`, doc, headers);
const versionRows = async (name: string) => {
  const state = await knex()('iac_states').where({ org_id: world.orgId, name }).first('id');
  return state ? knex()('iac_state_versions').where({ state_id: state.id }).orderBy('version') : [];
};

describe('import and the views (iac_state:view)', () => {
  it('imports a document as a new version (201); the list, the state and its versions show sizes and digests, never the document', async () => {
    const doc = stateDoc(7, 'lin-1', { outputs: { password: { value: 'p@ssw0rd-1', sensitive: true } } });
    const imported = await importDoc('core', doc, { 'content-md5': md5(doc) });
    expect(imported.status).toBe(201);
    expect(await imported.json()).toMatchObject({
      version: 1,
      serial: 7,
      lineage: 'lin-1',
      source: 'import',
      size: Buffer.byteLength(doc),
    });
    for (const path of ['/iac-states', '/iac-states/core', '/iac-states/core/versions']) {
      const response = await call(viewer, 'GET', path);
      expect(response.status, path).toBe(200);
      expect(await response.text(), path).not.toContain('p@ssw0rd-1');
    }
    expect(await (await call(viewer, 'GET', '/iac-states?q=cor')).json()).toMatchObject({
      total: 1,
      items: [{ name: 'core', latest_version: 1, serial: 7, lock: null }],
    });
    expect(await (await call(viewer, 'GET', '/iac-states/core/versions')).json()).toMatchObject({
      items: [{ version: 1, source: 'import' }],
    });
  });

  it('refuses an import with a wrong Content-MD5 (400) or not a state (422), and while the state is locked (423)', async () => {
    expect(await problemOf(await importDoc('checked', stateDoc(1), { 'content-md5': md5('other') }))).toEqual({
      status: 400,
      code: 'content_md5_mismatch',
    });
    expect(await problemOf(await importDoc('checked', 'not json'))).toEqual({ status: 422, code: 'invalid_state_document' });
    const t = await mintStateToken(world, 'checked');
    expect((await call(t.basic, 'POST', '/iac-states/checked/lock', lockInfo('run-lock'))).status).toBe(200);
    const refused = await importDoc('checked', stateDoc(1));
    expect(refused.status).toBe(423);
    expect(await refused.json()).toMatchObject({ code: 'iac_state_locked', ID: 'run-lock' });
    expect(await versionRows('checked')).toHaveLength(0);
  });

  it('keeps states to their organization: another organization sees none of them (404, an empty list)', async () => {
    await importDoc('private', stateDoc(1));
    const elsewhere = (path: string) => fetch(`${world.daemon.url}${path}`, { headers: { authorization: outsider, 'x-org-id': 'globex' } });
    expect(await problemOf(await elsewhere('/iac-states/private'))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await problemOf(await elsewhere('/iac-states/private/versions/1/content'))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await (await elsewhere('/iac-states')).json()).toMatchObject({ total: 0, items: [] });
  });
});

describe('content (iac_state:read)', () => {
  it("answers a version's document to an operator, and refuses a viewer (403)", async () => {
    const doc = stateDoc(2, 'lin-c');
    await importDoc('readable', doc);
    const read = await call(world.operator, 'GET', '/iac-states/readable/versions/1/content');
    expect(read.status).toBe(200);
    expect(await read.text()).toBe(doc);
    expect(await problemOf(await call(viewer, 'GET', '/iac-states/readable/versions/1/content'))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(await problemOf(await call(viewer, 'GET', '/iac-states/readable/state'))).toEqual({ status: 403, code: 'forbidden' });
    expect(await problemOf(await call(world.operator, 'GET', '/iac-states/readable/versions/9/content'))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
  });
});

describe('encryption at rest', () => {
  it('stores each version AES-256-GCM-sealed, bound to its organization, name and version', async () => {
    const doc = stateDoc(1, 'lin-e', { marker: 'plain-marker-text' });
    await importDoc('sealed', doc);
    await importDoc('sealed', stateDoc(2, 'lin-e'));
    const [first, second] = await versionRows('sealed');
    expect((first.ciphertext as Buffer).toString('utf8')).not.toContain('plain-marker-text');
    expect(first).toMatchObject({ size: Buffer.byteLength(doc), key_id: expect.any(String) });
    expect((first.nonce as Buffer).length).toBe(12);
    expect((first.auth_tag as Buffer).length).toBe(16);
    // Version 1's sealed bytes put in version 2's place do not open there: the version is in the associated data.
    await knex()('iac_state_versions')
      .where({ id: second.id })
      .update({ nonce: first.nonce, ciphertext: first.ciphertext, auth_tag: first.auth_tag });
    expect(await problemOf(await call(world.operator, 'GET', '/iac-states/sealed/versions/2/content'))).toEqual({
      status: 500,
      code: 'iac_state_unreadable',
    });
    expect((await call(world.operator, 'GET', '/iac-states/sealed/versions/1/content')).status).toBe(200);
  });
});

describe('rollback (iac_state:write)', () => {
  it("writes a new version holding the earlier version's document, naming it", async () => {
    const one = stateDoc(1, 'lin-r');
    await importDoc('rolled', one);
    await importDoc('rolled', stateDoc(2, 'lin-r'));
    const rolled = await call(world.operator, 'POST', '/iac-states/rolled/rollback', { version: 1 });
    expect(rolled.status).toBe(201);
    expect(await rolled.json()).toMatchObject({ version: 3, serial: 1, source: 'rollback', rolled_back_from: 1 });
    expect(await (await call(world.operator, 'GET', '/iac-states/rolled/versions/3/content')).text()).toBe(one);
    expect(await problemOf(await call(world.operator, 'POST', '/iac-states/rolled/rollback', { version: 9 }))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await problemOf(await call(viewer, 'POST', '/iac-states/rolled/rollback', { version: 1 }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(await versionRows('rolled')).toHaveLength(3);
  });
});

describe('force-unlock and delete (iac_state:manage)', () => {
  it('lets an admin remove any lock (audited with the lock), refuses an operator', async () => {
    const t = await mintStateToken(world, 'forced');
    expect((await call(t.basic, 'POST', '/iac-states/forced/lock', lockInfo('crashed-run'))).status).toBe(200);
    expect(await problemOf(await call(world.operator, 'POST', '/iac-states/forced/force-unlock'))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    const forced = await call(admin, 'POST', '/iac-states/forced/force-unlock');
    expect(forced.status).toBe(200);
    expect(await forced.json()).toMatchObject({ name: 'forced', lock: null });
    const [entry] = await knex()('audit_logs').where({ event_type: 'iac_state.force_unlocked', action: 'iac_state:manage' });
    expect(entry.details_json).toMatchObject({ name: 'forced', lock_id: 'crashed-run' });
  });

  it('deletes a state with all its versions (204), refused while locked (423) and to an operator (403)', async () => {
    await importDoc('doomed', stateDoc(1));
    await importDoc('doomed', stateDoc(2));
    expect(await problemOf(await call(world.operator, 'DELETE', '/iac-states/doomed'))).toEqual({ status: 403, code: 'forbidden' });
    const t = await mintStateToken(world, 'doomed');
    expect((await call(t.basic, 'POST', '/iac-states/doomed/lock', lockInfo('l'))).status).toBe(200);
    expect(await problemOf(await call(admin, 'DELETE', '/iac-states/doomed'))).toEqual({ status: 423, code: 'iac_state_locked' });
    expect((await call(admin, 'POST', '/iac-states/doomed/force-unlock')).status).toBe(200);
    expect((await call(admin, 'DELETE', '/iac-states/doomed')).status).toBe(204);
    expect(await knex()('iac_states').where({ name: 'doomed' })).toHaveLength(0);
    expect(await problemOf(await call(admin, 'GET', '/iac-states/doomed'))).toEqual({ status: 404, code: 'resource_not_found' });
    const [entry] = await knex()('audit_logs').where({ event_type: 'iac_state.deleted' });
    expect(entry.details_json).toMatchObject({ name: 'doomed', versions: 2 });
  });
});
