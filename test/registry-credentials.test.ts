import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from './helpers/cli.js';
import { call, count, createSecret, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

let world: World;
const knex = () => world.knex();
const audits = (eventType: string) => count(knex()('audit_logs').where({ event_type: eventType, resource_type: 'registry_credential' }));
let passwordRef: string;
let upstream: Server;
let upstreamUrl: string;

const GOOD = `Basic ${Buffer.from('acme-bot:hunter2-password').toString('base64')}`;

/** An upstream registry: `/basic` challenges Basic, `/bearer` names its token service, `/teapot` is no registry. */
function fakeUpstream(): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://upstream');
    const good = request.headers.authorization === GOOD;
    if (url.pathname === '/basic/v2/') {
      response.writeHead(good ? 200 : 401, good ? {} : { 'www-authenticate': 'Basic realm="upstream"' }).end();
    } else if (url.pathname === '/bearer/v2/') {
      response.writeHead(401, { 'www-authenticate': `Bearer realm="${upstreamUrl}/token",service="upstream"` }).end();
    } else if (url.pathname === '/token' && url.searchParams.get('service') === 'upstream') {
      if (good) response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: 'opaque' }));
      else response.writeHead(401).end();
    } else {
      response.writeHead(404).end();
    }
  });
}

beforeAll(async () => {
  upstream = fakeUpstream();
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  world = await startWorld({ SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8' });
  await createSecret(world, 'alice', 'dockerhub', 'hunter2-password');
  passwordRef = "{{ secret('dockerhub') }}";
});
afterAll(async () => {
  await world?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

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
    // Docker Hub's images are docker.io/…, its API is registry-1.docker.io.
    const hub = await call(world, 'alice', 'POST', '/registry-credentials', valid({ registry: 'docker.io' }));
    expect(hub.status).toBe(201);
    expect(hub.body.url).toBe('https://registry-1.docker.io');
    expect((await call(world, 'alice', 'DELETE', `/registry-credentials/${hub.body.id}`)).status).toBe(204);
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

describe('POST /registry-credentials/{credential_id}/test: a real login to the upstream', () => {
  const credential = async (registry: string, fields: Record<string, unknown>) => {
    const created = await call(world, 'alice', 'POST', '/registry-credentials', valid({ registry, ...fields }));
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const test = (id: string) => call(world, 'alice', 'POST', `/registry-credentials/${id}/test`);

  it.each([
    ['a Basic challenge, the right password', 'basic.test', { url: `/basic` }, { ok: true, outcome: 'authenticated', http_status: 200 }],
    [
      'a Basic challenge, a wrong user',
      'basic2.test',
      { url: `/basic`, username: 'mallory' },
      { ok: false, outcome: 'unauthorized', http_status: 401 },
    ],
    ['a token service, the right password', 'bearer.test', { url: `/bearer` }, { ok: true, outcome: 'authenticated', http_status: 200 }],
    [
      'a token service, a wrong user',
      'bearer2.test',
      { url: `/bearer`, username: 'mallory' },
      { ok: false, outcome: 'unauthorized', http_status: 401 },
    ],
    ['no registry there', 'teapot.test', { url: `/teapot` }, { ok: false, outcome: 'not_a_registry', http_status: 404 }],
    [
      'a secret that does not exist',
      'nosecret.test',
      { url: `/basic`, password_ref: "{{ secret('missing') }}" },
      { ok: false, outcome: 'secret_unresolvable' },
    ],
  ])('%s', async (_what, registry, fields, expected) => {
    const id = await credential(registry, { ...fields, url: `${upstreamUrl}${fields.url}` });
    const answer = await test(id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject(expected);
    expect(JSON.stringify(answer.body)).not.toContain('hunter2');
    const read = await call(world, 'alice', 'GET', `/registry-credentials/${id}`);
    expect(read.body.last_test_ok).toBe(expected.ok);
    expect(read.body.last_tested_at).not.toBeNull();
    const entries = await knex()('audit_logs').where({ event_type: 'registry_credential.tested', resource_id: id });
    expect(entries.map((entry) => entry.outcome)).toEqual([expected.ok ? 'success' : 'failure']);
    expect(JSON.stringify(entries)).not.toContain('hunter2');
  });

  it('is refused by the outbound guard for a private address outside the allowed networks, nothing sent', async () => {
    const id = await credential('private.test', { url: 'http://10.255.255.1:5000' });
    const answer = await test(id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ok: false, outcome: 'address_not_allowed', http_status: null });
  });
});

describe('svc registry-credentials', () => {
  let configHome: string;
  const svc = (who: string, args: string[]) =>
    runSvc(['--server', world.url, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: world.as[who]!.replace(/^Bearer /, '') } });
  const row = (registry: string) => knex()('registry_credentials').where({ org_id: world.ids.acme, registry }).first();
  beforeAll(async () => {
    configHome = await mkdtemp(join(tmpdir(), 'svc-cli-registry-'));
  });
  afterAll(() => rm(configHome, { recursive: true, force: true }));

  it('adds, lists, tries, changes and removes a login by its registry; a refused login exits 1; a viewer cannot add one', async () => {
    const added = await svc('alice', [
      ...['registry-credentials', 'create', 'cli.test', '--username', 'acme-bot'],
      ...['--password', passwordRef, '--url', `${upstreamUrl}/basic`],
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe(`${(await row('cli.test')).id}\n`);
    expect(await row('cli.test')).toMatchObject({ username: 'acme-bot', password_ref: passwordRef });
    const viewer = await svc('carol', ['registry-credentials', 'create', 'other.test', '--username', 'x', '--password', passwordRef]);
    expect(viewer.code).toBe(5);
    expect(await row('other.test')).toBeUndefined();

    const listed = await svc('carol', ['registry-credentials', 'list', '--json', '--q', 'cli.test']);
    expect(JSON.parse(listed.stdout).items.map((c: { registry: string }) => c.registry)).toEqual(['cli.test']);
    const tried = await svc('alice', ['registry-credentials', 'test', 'cli.test', '--json']);
    expect(tried.code, tried.stderr).toBe(0);
    expect(JSON.parse(tried.stdout)).toMatchObject({ ok: true, outcome: 'authenticated' });

    const changed = await svc('alice', [
      'registry-credentials',
      'update',
      'cli.test',
      '--username',
      'someone-else',
      '--description',
      'lab',
    ]);
    expect(changed.code, changed.stderr).toBe(0);
    expect(await row('cli.test')).toMatchObject({ username: 'someone-else', description: 'lab' });
    const refused = await svc('alice', ['registry-credentials', 'test', 'cli.test']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^outcome:\s+unauthorized$/m);
    expect((await svc('alice', ['registry-credentials', 'update', 'cli.test'])).code).toBe(2);
    expect((await svc('alice', ['registry-credentials', 'update', 'nowhere.test', '--username', 'x'])).code).toBe(3);

    const removed = await svc('alice', ['registry-credentials', 'delete', 'cli.test', '--yes', '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ deleted: true });
    expect(await row('cli.test')).toBeUndefined();
  });
});
