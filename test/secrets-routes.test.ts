import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { openSecretsModule, type SecretsModule } from '../src/daemon/domains/secrets/module.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

/**
 * The secrets API over a real daemon: metadata in `secrets`, values encrypted in the built-in backend
 * (`secret_values`). Every response body and every audit row is searched for the values sent.
 */
let idp: DevIdp;
let daemon: TestDaemon;
const ids: Record<string, string> = {};
const as: Record<string, string> = {};
/** Every value sent in this file; none may come back in any answer or audit entry. */
const SENT = [
  's3cr3t-db-password-value',
  'tok-ABCDEF-0123456789',
  'hmac-key-material-xyz',
  'replaced-password-value',
  'globex-private-value',
  'adopted-folder-value',
];
const bodies: string[] = [];

const knex = () => daemon.services.db.knex;
let secrets: SecretsModule;
/** The resolver other domains get, over the daemon's database and key. */
const resolver = () => secrets.resolver;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
  secrets = await openSecretsModule(daemon.services);
  const db = knex();
  ids.acme = await seedOrg(db, 'acme', 'Acme');
  ids.globex = await seedOrg(db, 'globex', 'Globex');
  await seedUser(db, { sub: 'sub-alice', username: 'alice' }, [{ orgSlug: 'acme', role: 'admin' }]);
  await seedUser(db, { sub: 'sub-carol', username: 'carol' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  await seedUser(db, { sub: 'sub-dave', username: 'dave' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await seedUser(db, { sub: 'sub-bob', username: 'bob' }, [{ orgSlug: 'globex', role: 'admin' }]);
  for (const [who, sub] of [
    ['alice', 'sub-alice'],
    ['carol', 'sub-carol'],
    ['dave', 'sub-dave'],
    ['bob', 'sub-bob'],
  ] as const) {
    as[who] = `Bearer ${await idp.mintAccessToken({ sub, username: who, email: `${who}@example.test`, realmRoles: [] })}`;
  }
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

async function call(who: string, method: string, path: string, body?: unknown, org = 'acme'): Promise<{ status: number; body: any }> {
  const response = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: as[who]!, 'x-org-id': org, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  bodies.push(text);
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const valueRows = (secretId?: string) =>
  secretId
    ? knex()('secret_values as v')
        .join('secrets as s', (j) => j.on('s.backend_id', 'v.backend_id'))
        .where('s.id', secretId)
        .whereRaw("v.location = 'orgs/' || (SELECT slug FROM organizations WHERE id = s.org_id) || '/secrets/' || s.path")
        .select('v.*')
    : knex()('secret_values').select();
const audits = (eventType: string, resourceId: string) =>
  knex()('audit_logs').where({ event_type: eventType, resource_id: resourceId }).orderBy('ts').select();

describe('secrets', () => {
  it('are created with values written encrypted to the built-in backend, answered with key names only, and audited', async () => {
    const created = await call('alice', 'POST', '/secrets', {
      name: 'db/primary',
      description: 'Primary database',
      values: { password: SENT[0], username: 'app' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'db/primary',
      description: 'Primary database',
      path: 'db/primary',
      keys: ['password', 'username'],
      reference: 'builtin://orgs/acme/secrets/db/primary',
      org_id: ids.acme,
    });
    expect(created.body.backend).toMatchObject({ type: 'builtin', scheme: 'builtin' });
    expect(created.body.created_by).toBe('sub-alice');
    ids.db = created.body.id;

    const stored = await valueRows(ids.db);
    expect(stored.map((r: { key_name: string }) => r.key_name).sort()).toEqual(['password', 'username']);
    for (const row of stored) {
      expect(Buffer.from(row.ciphertext).toString('utf8')).not.toContain('app');
      expect(Buffer.from(row.nonce)).toHaveLength(12);
      expect(row.org_id).toBe(ids.acme);
    }
    const [entry] = await audits('entity.created', ids.db!);
    expect(entry).toMatchObject({
      org_id: ids.acme,
      actor_sub: 'sub-alice',
      action: 'secret:manage',
      resource_type: 'secret',
      outcome: 'success',
    });
    expect(entry.details_json).toMatchObject({ name: 'db/primary', keys: ['password', 'username'] });
  });

  it('are listed as metadata (no keys) with limit and offset, and read with the key names of a live read', async () => {
    await call('alice', 'POST', '/secrets', { name: 'api-token', values: { token: SENT[1] } });
    const list = await call('carol', 'GET', '/secrets?limit=1&offset=0');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0].name).toBe('api-token');
    expect(list.body.items[0]).not.toHaveProperty('keys');
    expect((await call('carol', 'GET', '/secrets')).body).toMatchObject({ limit: 50, offset: 0, total: 2 });
    // By name: the one secret of that name, or none; a name no secret may have is refused.
    const named = await call('carol', 'GET', '/secrets?name=db%2Fprimary');
    expect(named.body).toMatchObject({ total: 1, items: [{ id: ids.db, name: 'db/primary' }] });
    expect((await call('carol', 'GET', '/secrets?name=db')).body).toMatchObject({ total: 0, items: [] });
    expect(await call('carol', 'GET', '/secrets?name=%20bad')).toMatchObject({ status: 422, body: { code: 'validation_failed' } });

    // A key removed behind the API's back is gone from the answer: the read goes to the backend, not to a cached list.
    await knex()('secret_values').where({ location: 'orgs/acme/secrets/db/primary', key_name: 'username' }).delete();
    const read = await call('carol', 'GET', `/secrets/${ids.db}`);
    expect(read.status).toBe(200);
    expect(read.body.keys).toEqual(['password']);
    await call('alice', 'PATCH', `/secrets/${ids.db}`, { values: { username: 'app' } });
  });

  it('merge values on update: named keys are set or replaced, remove_keys removes, others stay', async () => {
    const updated = await call('alice', 'PATCH', `/secrets/${ids.db}`, {
      values: { password: SENT[3], port: '5432' },
      description: 'Main DB',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ keys: ['password', 'port', 'username'], description: 'Main DB', updated_by: 'sub-alice' });
    const removed = await call('alice', 'PATCH', `/secrets/${ids.db}`, { remove_keys: ['port', 'not-there'] });
    expect(removed.body.keys).toEqual(['password', 'username']);
    expect(
      (await daemon.services.db.knex('secret_values').where({ location: 'orgs/acme/secrets/db/primary' }).pluck('key_name')).sort(),
    ).toEqual(['password', 'username']);

    const entries = await audits('entity.updated', ids.db!);
    expect(entries.at(-2).details_json).toMatchObject({ keys_set: ['password', 'port'], keys_removed: [], description_changed: true });
    expect(entries.at(-1).details_json).toMatchObject({ keys_set: [], keys_removed: ['port'] });
  });

  it.each([
    ['an empty body', {}],
    ['a name change', { name: 'other' }],
    ['a path change', { path: 'other' }],
    ['a key both set and removed', { values: { a: 'x' }, remove_keys: ['a'] }],
    ['removing every key', { remove_keys: ['password', 'username'] }],
    ['a bad key name', { values: { '1bad': 'x' } }],
    ['a value that is not a string', { values: { a: 1 } }],
    ['a value over 64 KiB', { values: { a: 'x'.repeat(64 * 1024 + 1) } }],
  ])('refuse %s on update with 422, changing nothing', async (_, body) => {
    const before = await knex()('secret_values')
      .where({ location: 'orgs/acme/secrets/db/primary' })
      .select('key_name', 'ciphertext')
      .orderBy('key_name');
    expect(await call('alice', 'PATCH', `/secrets/${ids.db}`, body)).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect(
      await knex()('secret_values')
        .where({ location: 'orgs/acme/secrets/db/primary' })
        .select('key_name', 'ciphertext')
        .orderBy('key_name'),
    ).toEqual(before);
  });

  it.each([
    ['no values', { name: 'empty' }],
    ['empty values', { name: 'empty', values: {} }],
    ['a name starting with a dot', { name: '.hidden', values: { a: 'x' } }],
    ['a name with a space', { name: 'a b', values: { a: 'x' } }],
    ['a name of 256 characters', { name: 'a'.repeat(256), values: { a: 'x' } }],
    ['a name climbing out of the prefix', { name: 'a/../../globex/secrets/x', values: { a: 'x' } }],
    ['a path with an empty segment', { name: 'ok', path: 'a//b', values: { a: 'x' } }],
    ['a key name of 129 characters', { name: 'ok', values: { ['k'.repeat(129)]: 'x' } }],
    ['an unknown backend', { name: 'ok', backend_id: '00000000-0000-4000-8000-000000000000', values: { a: 'x' } }],
    ['an unknown field', { name: 'ok', values: { a: 'x' }, org_id: 'x' }],
  ])('refuse %s on create with 422 validation_failed, creating nothing', async (_, body) => {
    const before = await knex()('secrets').count<{ n: string }[]>('* as n');
    expect(await call('alice', 'POST', '/secrets', body)).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect((await knex()('secrets').count<{ n: string }[]>('* as n'))[0]!.n).toEqual(before[0]!.n);
  });

  it('refuse a duplicate name or folder in the organization with 409, but allow the name in another organization', async () => {
    expect(await call('alice', 'POST', '/secrets', { name: 'api-token', values: { a: 'x' } })).toMatchObject({
      status: 409,
      body: { code: 'conflict' },
    });
    expect(await call('alice', 'POST', '/secrets', { name: 'other-name', path: 'api-token', values: { a: 'x' } })).toMatchObject({
      status: 409,
      body: { code: 'conflict' },
    });
    const globex = await call('bob', 'POST', '/secrets', { name: 'api-token', values: { token: SENT[4] } }, 'globex');
    expect(globex.status).toBe(201);
    expect(globex.body.reference).toBe('builtin://orgs/globex/secrets/api-token');
    ids.globexToken = globex.body.id;
  });

  it('answer a malformed JSON body without quoting it back', async () => {
    const response = await fetch(`${daemon.url}/secrets`, {
      method: 'POST',
      headers: { authorization: as.alice!, 'x-org-id': 'acme', 'content-type': 'application/json' },
      body: `{"name":"x","values":{"a":${SENT[2]}}}`,
    });
    const text = await response.text();
    bodies.push(text);
    expect(response.status).toBe(400);
    expect(JSON.parse(text).code).toBe('malformed_json');
    expect(text).not.toContain('hmac-key');
  });

  it('are duplicated with their values under a new name', async () => {
    const copy = await call('alice', 'POST', `/secrets/${ids.db}/duplicate`, { name: 'db/replica' });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: 'db/replica', path: 'db/replica', keys: ['password', 'username'], description: 'Main DB' });
    ids.replica = copy.body.id;
    expect(await valueRows(ids.replica)).toHaveLength(2);
    // Both decrypt: the copy is a new encryption under its own location, not copied ciphertext.
    expect((await call('alice', 'GET', `/secrets/${ids.replica}`)).body.keys).toEqual(['password', 'username']);
    expect(await resolver().resolveReference(ids.acme!, 'builtin://orgs/acme/secrets/db/replica#password')).toBe(SENT[3]);
    expect((await audits('entity.created', ids.replica!))[0].details_json).toMatchObject({
      duplicated_from: ids.db,
      keys: ['password', 'username'],
    });
    expect(await call('alice', 'POST', `/secrets/${ids.db}/duplicate`, { name: 'db/replica' })).toMatchObject({ status: 409 });
  });

  it('are not visible across organizations: 404 on read, update, delete and duplicate, with no change', async () => {
    const globexId = ids.globexToken!;
    const before = await knex()('secret_values').where({ location: 'orgs/globex/secrets/api-token' }).select('ciphertext');
    expect((await call('alice', 'GET', '/secrets')).body.items.map((s: { id: string }) => s.id)).not.toContain(globexId);
    expect(await call('alice', 'GET', `/secrets/${globexId}`)).toMatchObject({ status: 404, body: { code: 'resource_not_found' } });
    expect(await call('alice', 'PATCH', `/secrets/${globexId}`, { values: { token: 'stolen' } })).toMatchObject({ status: 404 });
    expect(await call('alice', 'DELETE', `/secrets/${globexId}`)).toMatchObject({ status: 404 });
    expect(await call('alice', 'POST', `/secrets/${globexId}/duplicate`, { name: 'mine-now' })).toMatchObject({ status: 404 });
    expect(await knex()('secrets').where({ id: globexId }).first()).toBeDefined();
    expect(await knex()('secret_values').where({ location: 'orgs/globex/secrets/api-token' }).select('ciphertext')).toEqual(before);
    expect(await knex()('secrets').where({ org_id: ids.acme, name: 'mine-now' }).first()).toBeUndefined();
    // A member of acme only cannot even name globex.
    expect((await call('alice', 'GET', '/secrets', undefined, 'globex')).status).toBe(403);
  });

  it('answer 404 for a path parameter that is not a UUID', async () => {
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { description: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      expect(await call('alice', method, '/secrets/not-a-uuid', body)).toMatchObject({ status: 404, body: { code: 'resource_not_found' } });
    }
  });

  it('follow the policies: a viewer lists and reads but cannot create, change or delete; discovery needs an operator', async () => {
    expect((await call('carol', 'GET', '/secrets')).status).toBe(200);
    expect((await call('carol', 'GET', `/secrets/${ids.db}`)).status).toBe(200);
    expect((await call('carol', 'GET', '/secrets/providers')).status).toBe(200);
    expect(await call('carol', 'POST', '/secrets', { name: 'viewer-made', values: { a: 'x' } })).toMatchObject({
      status: 403,
      body: { code: 'forbidden' },
    });
    expect((await call('carol', 'PATCH', `/secrets/${ids.db}`, { description: 'x' })).status).toBe(403);
    expect((await call('carol', 'DELETE', `/secrets/${ids.db}`)).status).toBe(403);
    expect((await call('carol', 'POST', `/secrets/${ids.db}/duplicate`, { name: 'x' })).status).toBe(403);
    expect((await call('carol', 'GET', '/secrets/discovered')).status).toBe(403);
    expect((await call('dave', 'GET', '/secrets/discovered')).status).toBe(200);
    expect((await call('dave', 'POST', '/secrets', { name: 'operator-made', values: { a: 'x' } })).status).toBe(403);
    expect(await knex()('secrets').whereIn('name', ['viewer-made', 'operator-made']).select()).toEqual([]);
  });

  it("list the providers with the organization's reference prefix", async () => {
    const providers = await call('carol', 'GET', '/secrets/providers');
    expect(providers.body.items).toContainEqual(
      expect.objectContaining({ type: 'builtin', scheme: 'builtin', is_default: true, reference_prefix: 'builtin://orgs/acme/secrets/' }),
    );
  });

  it('discover folders no secret refers to, and adopt one by creating a secret without values', async () => {
    expect((await call('dave', 'GET', '/secrets/discovered')).body).toMatchObject({ items: [], total: 0 });
    // A folder left in the store without its row (as one written to an external store by other tools would be).
    const orphan = await call('alice', 'POST', '/secrets', { name: 'legacy/router', values: { value: SENT[5] } });
    await knex()('secrets').where({ id: orphan.body.id }).delete();
    const found = await call('dave', 'GET', '/secrets/discovered');
    expect(found.body.items).toEqual([
      expect.objectContaining({ path: 'legacy/router', reference: 'builtin://orgs/acme/secrets/legacy/router' }),
    ]);
    // Other organizations do not see it.
    expect((await call('bob', 'GET', '/secrets/discovered', undefined, 'globex')).body.items).toEqual([]);

    const adopted = await call('alice', 'POST', '/secrets', { name: 'router', path: 'legacy/router' });
    expect(adopted).toMatchObject({ status: 201, body: { keys: ['value'], path: 'legacy/router' } });
    expect((await audits('entity.created', adopted.body.id))[0].details_json).toMatchObject({ adopted: true, keys: ['value'] });
    expect((await call('dave', 'GET', '/secrets/discovered')).body.items).toEqual([]);
    expect(await call('alice', 'POST', '/secrets', { name: 'ghost', path: 'nothing/here' })).toMatchObject({
      status: 422,
      body: { code: 'validation_failed' },
    });
  });

  it('fail a read with 503 secret_backend_unavailable when a ciphertext is moved to another row', async () => {
    const rows = await knex()('secret_values')
      .where({ location: 'orgs/acme/secrets/db/replica' })
      .orderBy('key_name')
      .select('id', 'nonce', 'ciphertext', 'auth_tag');
    const [password, username] = rows;
    // The username row gets the password row's ciphertext: same key, valid GCM, wrong associated data.
    await knex()('secret_values')
      .where({ id: username.id })
      .update({ nonce: password.nonce, ciphertext: password.ciphertext, auth_tag: password.auth_tag });
    const read = await call('alice', 'GET', `/secrets/${ids.replica}`);
    expect(read).toMatchObject({ status: 503, body: { code: 'secret_backend_unavailable' } });
    await expect(resolver().readFolder(ids.replica!)).rejects.toMatchObject({ name: 'SecretBackendError' });
    // A ciphertext moved across organizations fails the same way.
    const globexRow = await knex()('secret_values')
      .where({ location: 'orgs/globex/secrets/api-token' })
      .first('nonce', 'ciphertext', 'auth_tag');
    await knex()('secret_values')
      .where({ id: password.id })
      .update({ ...globexRow });
    expect((await call('alice', 'GET', `/secrets/${ids.replica}`)).status).toBe(503);
  });

  it('are deleted with their values in the backend (no restore), and the deletion is audited', async () => {
    expect(await valueRows(ids.replica)).toHaveLength(2);
    expect((await call('alice', 'DELETE', `/secrets/${ids.replica}`)).status).toBe(204);
    expect(await knex()('secrets').where({ id: ids.replica }).first()).toBeUndefined();
    expect(await knex()('secret_values').where({ location: 'orgs/acme/secrets/db/replica' }).select()).toEqual([]);
    expect((await call('alice', 'GET', `/secrets/${ids.replica}`)).status).toBe(404);
    const [entry] = await audits('entity.deleted', ids.replica!);
    expect(entry).toMatchObject({ action: 'secret:manage', resource_type: 'secret', org_id: ids.acme });
    expect(await call('alice', 'DELETE', `/secrets/${ids.replica}`)).toMatchObject({ status: 404 });
  });

  it('never put a value in any answer or audit entry', async () => {
    const everything = bodies.join('\n');
    const audit = JSON.stringify(await knex()('audit_logs').select());
    for (const value of SENT) {
      expect(everything, value).not.toContain(value);
      expect(audit, value).not.toContain(value);
    }
  });
});
