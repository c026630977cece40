import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, count, createSecret, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

let world: World;
const knex = () => world.knex();
const audits = (eventType: string) => count(knex()('audit_logs').where({ event_type: eventType, resource_type: 'registry_credential' }));
let passwordRef: string;

beforeAll(async () => {
  world = await startWorld();
  await createSecret(world, 'alice', 'dockerhub', 'hunter2-password');
  passwordRef = "{{ secret('dockerhub') }}";
});
afterAll(() => world?.close());

const valid = (fields: Record<string, unknown> = {}) => ({
  registry: 'docker.io',
  username: 'acme-bot',
  password_ref: passwordRef,
  ...fields,
});

describe('registry credentials', () => {
  it('creates, reads, lists, changes and removes a credential, each write audited, the password only as its reference', async () => {
    const before = await audits('entity.created');
    const created = await call(world, 'alice', 'POST', '/registry-credentials', valid({ url: 'https://registry-1.docker.io' }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      registry: 'docker.io',
      url: 'https://registry-1.docker.io',
      username: 'acme-bot',
      password_ref: passwordRef,
      org_id: world.ids.acme,
      last_test_ok: null,
    });
    expect(JSON.stringify(created.body)).not.toContain('hunter2');
    expect(await audits('entity.created')).toBe(before + 1);
    const id = created.body.id as string;

    const read = await call(world, 'carol', 'GET', `/registry-credentials/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(id);

    const list = await call(world, 'carol', 'GET', '/registry-credentials?q=docker');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });

    const changed = await call(world, 'alice', 'PATCH', `/registry-credentials/${id}`, { username: 'acme-robot', description: 'hub' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ username: 'acme-robot', description: 'hub', registry: 'docker.io' });
    expect(await audits('entity.updated')).toBe(1);

    expect((await call(world, 'alice', 'DELETE', `/registry-credentials/${id}`)).status).toBe(204);
    expect((await call(world, 'alice', 'GET', `/registry-credentials/${id}`)).status).toBe(404);
    expect(await audits('entity.deleted')).toBe(1);
  });

  it('defaults the url to https://<registry> and keeps one credential per registry (409)', async () => {
    const created = await call(world, 'alice', 'POST', '/registry-credentials', valid({ registry: 'ghcr.io' }));
    expect(created.status).toBe(201);
    expect(created.body.url).toBe('https://ghcr.io');
    const again = await call(world, 'alice', 'POST', '/registry-credentials', valid({ registry: 'ghcr.io' }));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conflict');
    // Another organization has its own.
    await createSecret(world, 'bob', 'ghcr', 'x', 'globex');
    const theirs = await call(
      world,
      'bob',
      'POST',
      '/registry-credentials',
      valid({ registry: 'ghcr.io', password_ref: "{{ secret('ghcr') }}" }),
      'globex',
    );
    expect(theirs.status).toBe(201);
  });

  it.each([
    ['a plain password', { password_ref: 'hunter2' }],
    ["another organization's secret", { password_ref: 'builtin://orgs/globex/secrets/ghcr' }],
    ['a registry that is no host name', { registry: 'library' }],
    ['a registry with a port', { registry: 'registry.local:5000' }],
    ['a url with credentials', { registry: 'quay.io', url: 'https://u:p@quay.io' }],
    ['a url of another scheme', { registry: 'quay.io', url: 'ftp://quay.io' }],
  ])('refuses %s (422), storing nothing', async (_what, fields) => {
    const before = await count(knex()('registry_credentials'));
    const refused = await call(world, 'alice', 'POST', '/registry-credentials', valid({ registry: 'quay.io', ...fields }));
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('validation_failed');
    expect(await count(knex()('registry_credentials'))).toBe(before);
  });

  it('refuses a plain password on a change too', async () => {
    const created = await call(world, 'alice', 'POST', '/registry-credentials', valid({ registry: 'quay.io' }));
    const refused = await call(world, 'alice', 'PATCH', `/registry-credentials/${created.body.id}`, { password_ref: 'plain' });
    expect(refused.status).toBe(422);
    expect((await call(world, 'alice', 'GET', `/registry-credentials/${created.body.id}`)).body.password_ref).toBe(passwordRef);
  });

  it("answers 404 for another organization's credential, a malformed and an unknown id", async () => {
    const theirs = await call(world, 'bob', 'GET', '/registry-credentials', undefined, 'globex');
    const theirId = theirs.body.items[0].id as string;
    for (const id of [theirId, 'nope', UNKNOWN_ID]) {
      expect((await call(world, 'alice', 'GET', `/registry-credentials/${id}`)).status).toBe(404);
      expect((await call(world, 'alice', 'PATCH', `/registry-credentials/${id}`, { username: 'x' })).status).toBe(404);
      expect((await call(world, 'alice', 'DELETE', `/registry-credentials/${id}`)).status).toBe(404);
      expect((await call(world, 'alice', 'POST', `/registry-credentials/${id}/test`)).status).toBe(404);
    }
    expect((await call(world, 'bob', 'GET', `/registry-credentials/${theirId}`, undefined, 'globex')).status).toBe(200);
  });

  it('lets a viewer read but not write or test (403)', async () => {
    const listed = await call(world, 'carol', 'GET', '/registry-credentials');
    expect(listed.status).toBe(200);
    const id = listed.body.items[0].id as string;
    expect((await call(world, 'carol', 'POST', '/registry-credentials', valid({ registry: 'example.com' }))).status).toBe(403);
    expect((await call(world, 'carol', 'PATCH', `/registry-credentials/${id}`, { username: 'x' })).status).toBe(403);
    expect((await call(world, 'carol', 'DELETE', `/registry-credentials/${id}`)).status).toBe(403);
    expect((await call(world, 'carol', 'POST', `/registry-credentials/${id}/test`)).status).toBe(403);
  });
});
