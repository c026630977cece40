import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

/** Secret backends: platform settings under /settings, decided on realm roles. */
let idp: DevIdp;
let daemon: TestDaemon;
const ids: Record<string, string> = {};
const as: Record<string, string> = {};
const VALUE = 'backend-test-value-9f8e7d';
const bodies: string[] = [];

const knex = () => daemon.services.db.knex;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
  ids.acme = await seedOrg(knex(), 'acme', 'Acme');
  await seedUser(knex(), { sub: 'sub-alice', username: 'alice' }, [{ orgSlug: 'acme', role: 'admin' }]);
  as.root = `Bearer ${await idp.mintAccessToken({ sub: 'sub-root', username: 'root', email: 'root@example.test', realmRoles: ['admin'] })}`;
  as.viewer = `Bearer ${await idp.mintAccessToken({ sub: 'sub-vera', username: 'vera', email: 'vera@example.test', realmRoles: ['viewer'] })}`;
  as.alice = `Bearer ${await idp.mintAccessToken({ sub: 'sub-alice', username: 'alice', email: 'alice@example.test', realmRoles: [] })}`;
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

async function call(who: string, method: string, path: string, body?: unknown, org?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${daemon.url}${path}`, {
    method,
    headers: {
      authorization: as[who]!,
      ...(org ? { 'x-org-id': org } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  bodies.push(text);
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const audits = (eventType: string, resourceId: string) =>
  knex()('audit_logs').where({ event_type: eventType, resource_id: resourceId }).orderBy('ts').select();

describe('secret backends', () => {
  it('list the types, with vault known but not available in this build', async () => {
    const types = await call('viewer', 'GET', '/settings/secret-backend-types');
    expect(types.status).toBe(200);
    expect(types.body.items).toEqual([
      expect.objectContaining({ type: 'builtin', available: true }),
      expect.objectContaining({ type: 'vault', available: false }),
    ]);
  });

  it('start with the built-in backend, the default, which a viewer can list and read', async () => {
    const list = await call('viewer', 'GET', '/settings/secrets-backends');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(list.body.items[0]).toMatchObject({
      name: 'Built-in',
      type: 'builtin',
      scheme: 'builtin',
      is_default: true,
      is_builtin: true,
      secrets_count: 0,
      config: {},
    });
    ids.builtin = list.body.items[0].id;
    expect((await call('viewer', 'GET', `/settings/secrets-backends/${ids.builtin}`)).body).toEqual(list.body.items[0]);
    expect(await call('viewer', 'GET', '/settings/secrets-backends/00000000-0000-4000-8000-000000000000')).toMatchObject({
      status: 404,
      body: { code: 'resource_not_found' },
    });
    expect(await call('viewer', 'GET', '/settings/secrets-backends/nope')).toMatchObject({
      status: 404,
      body: { code: 'resource_not_found' },
    });
  });

  it('refuse a vault backend with 422 unsupported_backend_type, and an unknown type or a configured built-in one with 422 validation_failed', async () => {
    const vault = await call('root', 'POST', '/settings/secrets-backends', {
      name: 'Vault',
      type: 'vault',
      scheme: 'vault',
      config: { address: 'https://vault.example.test', mount: 'kv' },
    });
    expect(vault).toMatchObject({ status: 422, body: { code: 'unsupported_backend_type', backend_type: 'vault' } });
    expect(await call('root', 'POST', '/settings/secrets-backends', { name: 'AWS', type: 'aws', scheme: 'aws' })).toMatchObject({
      status: 422,
      body: { code: 'validation_failed' },
    });
    expect(
      await call('root', 'POST', '/settings/secrets-backends', { name: 'X', type: 'builtin', scheme: 'x', config: { a: 1 } }),
    ).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect(await call('root', 'POST', '/settings/secrets-backends', { name: 'X', type: 'builtin', scheme: 'Not A Scheme' })).toMatchObject({
      status: 422,
      body: { code: 'validation_failed' },
    });
    expect(Number((await knex()('secret_backends').count<{ n: string }[]>('* as n'))[0]!.n)).toBe(1);
  });

  it('create another built-in backend (a separate namespace of the encrypted store), audited; names and schemes are unique', async () => {
    const created = await call('root', 'POST', '/settings/secrets-backends', { name: 'Lab store', type: 'builtin', scheme: 'lab' });
    expect(created).toMatchObject({
      status: 201,
      body: { name: 'Lab store', type: 'builtin', scheme: 'lab', is_default: false, is_builtin: false, created_by: 'sub-root' },
    });
    ids.lab = created.body.id;
    expect((await audits('entity.created', ids.lab!))[0]).toMatchObject({
      action: 'secret_backend:manage',
      resource_type: 'secret_backend',
      actor_sub: 'sub-root',
    });
    expect(await call('root', 'POST', '/settings/secrets-backends', { name: 'Lab store', type: 'builtin', scheme: 'lab2' })).toMatchObject({
      status: 409,
      body: { code: 'conflict' },
    });
    expect(await call('root', 'POST', '/settings/secrets-backends', { name: 'Lab 2', type: 'builtin', scheme: 'lab' })).toMatchObject({
      status: 409,
      body: { code: 'conflict' },
    });
    expect(await call('root', 'POST', '/settings/secrets-backends', { name: 'Lab 3', type: 'builtin', scheme: 'builtin' })).toMatchObject({
      status: 409,
      body: { code: 'conflict' },
    });
  });

  it('are renamed, and the default mark moves (never removed outright)', async () => {
    const renamed = await call('root', 'PATCH', `/settings/secrets-backends/${ids.lab}`, { name: 'Lab' });
    expect(renamed).toMatchObject({ status: 200, body: { name: 'Lab' } });
    expect((await audits('entity.updated', ids.lab!))[0].details_json.changes).toEqual({ name: { old: 'Lab store', new: 'Lab' } });
    expect(await call('root', 'PATCH', `/settings/secrets-backends/${ids.lab}`, { name: 'Built-in' })).toMatchObject({ status: 409 });
    expect(await call('root', 'PATCH', `/settings/secrets-backends/${ids.lab}`, { scheme: 'other' })).toMatchObject({ status: 422 });

    expect((await call('root', 'PATCH', `/settings/secrets-backends/${ids.lab}`, { is_default: true })).body.is_default).toBe(true);
    expect((await call('root', 'GET', `/settings/secrets-backends/${ids.builtin}`)).body.is_default).toBe(false);
    expect(await call('root', 'PATCH', `/settings/secrets-backends/${ids.lab}`, { is_default: false })).toMatchObject({
      status: 409,
      body: { code: 'conflict' },
    });
    expect(await knex()('secret_backends').where({ is_default: true }).pluck('id')).toEqual([ids.lab]);
  });

  it('refuse to make a backend of a type this build does not serve the default (422 unsupported_backend_type), the mark unmoved', async () => {
    const [row] = (await knex()('secret_backends')
      .insert({ name: 'Old vault', type: 'vault', scheme: 'oldvault', config_json: { address: 'https://vault.example.test' } })
      .returning('id')) as { id: string }[];
    try {
      expect(await call('root', 'PATCH', `/settings/secrets-backends/${row!.id}`, { is_default: true })).toMatchObject({
        status: 422,
        body: { code: 'unsupported_backend_type', backend_type: 'vault' },
      });
      expect(await knex()('secret_backends').where({ is_default: true }).pluck('id')).toEqual([ids.lab]);
      // Renaming it is still allowed: the row exists, and an operator may label it before removing it.
      expect(await call('root', 'PATCH', `/settings/secrets-backends/${row!.id}`, { name: 'Old vault (unused)' })).toMatchObject({
        status: 200,
      });
    } finally {
      await knex()('secret_backends').where({ id: row!.id }).delete();
    }
  });

  it('take new secrets by default, and show them as providers with their reference prefix', async () => {
    const providers = await call('alice', 'GET', '/secrets/providers', undefined, 'acme');
    expect(providers.body.items.map((p: { scheme: string; reference_prefix: string }) => [p.scheme, p.reference_prefix])).toEqual([
      ['lab', 'lab://orgs/acme/secrets/'],
      ['builtin', 'builtin://orgs/acme/secrets/'],
    ]);
    const secret = await call('alice', 'POST', '/secrets', { name: 'switch', values: { password: VALUE } }, 'acme');
    expect(secret).toMatchObject({
      status: 201,
      body: { backend: { id: ids.lab, scheme: 'lab' }, reference: 'lab://orgs/acme/secrets/switch' },
    });
    ids.secret = secret.body.id;
    const inBuiltin = await call(
      'alice',
      'POST',
      '/secrets',
      { name: 'router', backend_id: ids.builtin, values: { password: VALUE } },
      'acme',
    );
    expect(inBuiltin.body.reference).toBe('builtin://orgs/acme/secrets/router');
    expect((await call('root', 'GET', `/settings/secrets-backends/${ids.lab}`)).body.secrets_count).toBe(1);
  });

  it('are tested with an encryption round trip and a store read', async () => {
    const test = await call('root', 'POST', `/settings/secrets-backends/${ids.lab}/test`);
    expect(test).toMatchObject({ status: 200, body: { ok: true } });
    expect(typeof test.body.detail).toBe('string');
    expect(await call('root', 'POST', '/settings/secrets-backends/00000000-0000-4000-8000-000000000000/test')).toMatchObject({
      status: 404,
    });
  });

  it('list their items by location, names only', async () => {
    const items = await call('root', 'GET', `/settings/secrets-backends/${ids.lab}/items`);
    expect(items).toMatchObject({
      status: 200,
      body: { total: 1, items: [{ location: 'orgs/acme/secrets/switch', org_slug: 'acme', path: 'switch' }] },
    });
    expect(
      (await call('root', 'GET', `/settings/secrets-backends/${ids.builtin}/items?prefix=orgs/acme/`)).body.items.map(
        (i: { path: string }) => i.path,
      ),
    ).toEqual(['router']);
    expect((await call('root', 'GET', `/settings/secrets-backends/${ids.builtin}/items?prefix=orgs/globex/`)).body.items).toEqual([]);
  });

  it('refuse deletion while secrets use them, of the default, and of the built-in backend', async () => {
    expect(await call('root', 'DELETE', `/settings/secrets-backends/${ids.lab}`)).toMatchObject({
      status: 409,
      body: { code: 'conflict' },
    });
    await call('root', 'PATCH', `/settings/secrets-backends/${ids.builtin}`, { is_default: true });
    expect(await call('root', 'DELETE', `/settings/secrets-backends/${ids.lab}`)).toMatchObject({ status: 409 });
    expect(await call('root', 'DELETE', `/settings/secrets-backends/${ids.builtin}`)).toMatchObject({ status: 409 });
    expect(
      await knex()('secret_backends')
        .count<{ n: string }[]>('* as n')
        .then((r) => Number(r[0]!.n)),
    ).toBe(2);
  });

  it('are deleted once unused, audited', async () => {
    expect((await call('alice', 'DELETE', `/secrets/${ids.secret}`, undefined, 'acme')).status).toBe(204);
    expect((await call('root', 'DELETE', `/settings/secrets-backends/${ids.lab}`)).status).toBe(204);
    expect(await knex()('secret_backends').where({ id: ids.lab }).first()).toBeUndefined();
    expect((await audits('entity.deleted', ids.lab!))[0]).toMatchObject({
      action: 'secret_backend:manage',
      resource_type: 'secret_backend',
    });
    expect(await call('root', 'DELETE', `/settings/secrets-backends/${ids.lab}`)).toMatchObject({ status: 404 });
  });

  it('are managed, tested and browsed by platform admins only; organization roles count for nothing here', async () => {
    expect((await call('viewer', 'POST', '/settings/secrets-backends', { name: 'V', type: 'builtin', scheme: 'v' })).status).toBe(403);
    expect((await call('viewer', 'PATCH', `/settings/secrets-backends/${ids.builtin}`, { name: 'Mine' })).status).toBe(403);
    expect((await call('viewer', 'DELETE', `/settings/secrets-backends/${ids.builtin}`)).status).toBe(403);
    expect((await call('viewer', 'POST', `/settings/secrets-backends/${ids.builtin}/test`)).status).toBe(403);
    expect((await call('viewer', 'GET', `/settings/secrets-backends/${ids.builtin}/items`)).status).toBe(403);
    expect((await call('alice', 'GET', '/settings/secrets-backends')).status).toBe(403);
    expect(await knex()('secret_backends').where({ name: 'Mine' }).first()).toBeUndefined();
  });

  it('never answer a value', () => {
    expect(bodies.join('\n')).not.toContain(VALUE);
  });
});
