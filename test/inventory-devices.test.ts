import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

// Three tenants: acme (admin alice, operator olga, viewer victor), globex (admin bob), and the shared organization (admin sam).
let idp: DevIdp;
let daemon: TestDaemon;
const orgs: Record<string, string> = {};
const tokens: Record<string, string> = {};
const homeOf: Record<string, string> = { alice: 'acme', olga: 'acme', victor: 'acme', bob: 'globex', sam: 'shared' };
const knex = () => daemon.services.db.knex;
const MAX_TARGETS = 4;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({
    SERVICE_IDP_ISSUER: idp.issuer,
    SERVICE_ORG_AUTO_JOIN: 'false',
    SERVICE_INVENTORY_MAX_RUN_TARGETS: String(MAX_TARGETS),
  });
  for (const slug of ['acme', 'globex', 'shared']) orgs[slug] = await seedOrg(knex(), slug);
  await knex()('organizations').where({ id: orgs.shared }).update({ is_shared: true });
  for (const [username, role] of [
    ['alice', 'admin'],
    ['olga', 'operator'],
    ['victor', 'viewer'],
    ['bob', 'admin'],
    ['sam', 'admin'],
  ] as const) {
    await seedUser(knex(), { sub: `sub-${username}`, username }, [{ orgSlug: homeOf[username]!, role }]);
    tokens[username] = await idp.mintAccessToken({ sub: `sub-${username}`, username, email: `${username}@example.test`, realmRoles: [] });
  }
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

function call(who: string, method: string, path: string, body?: unknown, org = homeOf[who]!): Promise<Response> {
  return fetch(`${daemon.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${tokens[who]}`,
      'x-org-id': org,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function outcome(response: Response): Promise<{ status: number; code?: string }> {
  const text = await response.text();
  const body = text ? (JSON.parse(text) as { code?: string }) : {};
  return { status: response.status, ...(body.code ? { code: body.code } : {}) };
}

interface Device {
  id: string;
  org_id: string;
  shared: boolean;
  name: string;
  hostname: string | null;
  platform: string | null;
  role: string | null;
  site_id: string | null;
  serial: string | null;
  tags: string[];
  attributes: Record<string, unknown>;
  overlay: { tags: string[]; maintenance: boolean | null };
  provider_id: string | null;
  external_id: string | null;
  provider_managed: boolean;
  deleted_at: string | null;
}

async function createDevice(who: string, body: Record<string, unknown>): Promise<Device> {
  const response = await call(who, 'POST', '/devices', body);
  expect(response.status, JSON.stringify(body)).toBe(201);
  return (await response.json()) as Device;
}

async function createSite(who: string, name: string): Promise<string> {
  const response = await call(who, 'POST', '/sites', { name });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function list(who: string, path: string): Promise<{ names: string[]; total: number; items: Device[] }> {
  const response = await call(who, 'GET', path);
  expect(response.status, path).toBe(200);
  const body = (await response.json()) as { items: Device[]; total: number };
  return { names: body.items.map((d) => d.name), total: body.total, items: body.items };
}

/** Marks a device provider-sourced, as provider sync would (the API never sets these). */
async function fromProvider(id: string, providerId: string, externalId: string): Promise<void> {
  await knex()('devices').where({ id }).update({ provider_id: providerId, external_id: externalId });
}

const row = (id: string) => knex()('devices').where({ id }).first();
const audits = (eventType: string, id: string) =>
  knex()('audit_logs').where({ event_type: eventType, resource_id: id }).orderBy('ts').select();

describe('devices', () => {
  it('are created, read and audited', async () => {
    const site = await createSite('alice', 'Dev Site');
    const device = await createDevice('alice', {
      name: ' core-1 ',
      hostname: '10.0.0.1',
      platform: 'ios-xe',
      role: 'core',
      site_id: site,
      serial: 'SN1',
      tags: ['a', 'b'],
      attributes: { rack: 4, nested: { x: true } },
    });
    expect(device).toMatchObject({
      org_id: orgs.acme,
      shared: false,
      name: 'core-1',
      hostname: '10.0.0.1',
      site_id: site,
      tags: ['a', 'b'],
      attributes: { rack: 4, nested: { x: true } },
      overlay: { tags: [], maintenance: null },
      provider_id: null,
      provider_managed: false,
    });
    expect(await (await call('victor', 'GET', `/devices/${device.id}`)).json()).toEqual(device);
    expect(await row(device.id)).toMatchObject({ created_by: 'sub-alice' });
    expect(await audits('entity.created', device.id)).toMatchObject([
      { resource_type: 'device', action: 'device:manage', org_id: orgs.acme, actor_sub: 'sub-alice' },
    ]);
  });

  it.each(['2001:db8::1', 'fe80::1%eth0', 'router1.example.net', 'router1.example.net.', 'r-1', '192.168.0.10'])(
    'accept the management address %s',
    async (hostname) => {
      await createDevice('alice', { name: `host ${hostname}`, hostname });
    },
  );

  it.each([
    ['a hostname that is no address', { name: 'h1', hostname: 'not a host' }],
    ['an IPv4 address out of range', { name: 'h2', hostname: '10.0.0.256' }],
    ['a hexadecimal IPv4 address', { name: 'h3', hostname: '0x0a.0.0.1' }],
    ['a label starting with a hyphen', { name: 'h4', hostname: '-bad.example' }],
    ['tags that are not strings', { name: 'h5', tags: [true] }],
    ['attributes that are not an object', { name: 'h6', attributes: [1] }],
    ['a provider id', { name: 'h7', provider_id: 'netbox:main' }],
    ['an external id', { name: 'h8', external_id: '5' }],
    ['a name with a control character', { name: 'h\u00009' }],
    ['a site that is not a UUID', { name: 'h10', site_id: 'x' }],
  ])('refuse %s with 422', async (_what, body) => {
    expect(await outcome(await call('alice', 'POST', '/devices', body))).toEqual({ status: 422, code: 'validation_failed' });
  });

  it('need a live site of their own organization', async () => {
    const foreignSite = await createSite('bob', 'Globex Site');
    const sharedSite = await createSite('sam', 'Shared Site For Devices');
    for (const site_id of [foreignSite, sharedSite, '00000000-0000-4000-8000-000000000000']) {
      expect(await outcome(await call('alice', 'POST', '/devices', { name: `on ${site_id}`, site_id }))).toEqual({
        status: 422,
        code: 'validation_failed',
      });
    }
  });

  it('keep names unique among the live devices of an organization', async () => {
    await createDevice('alice', { name: 'dup-name' });
    expect(await outcome(await call('alice', 'POST', '/devices', { name: 'dup-name' }))).toEqual({ status: 409, code: 'conflict' });
    await createDevice('bob', { name: 'dup-name' });
  });

  it('are replaced whole by PUT, and a PUT that changes nothing writes nothing', async () => {
    const device = await createDevice('alice', {
      name: 'put-1',
      hostname: 'put-1.example',
      platform: 'eos',
      tags: ['x'],
      attributes: { b: 1, a: 2 },
    });
    const same = await call('alice', 'PUT', `/devices/${device.id}`, {
      name: 'put-1',
      hostname: 'put-1.example',
      platform: 'eos',
      tags: ['x'],
      attributes: { a: 2, b: 1 },
    });
    expect(same.status).toBe(200);
    expect(await audits('entity.updated', device.id)).toEqual([]);

    const replaced = await call('alice', 'PUT', `/devices/${device.id}`, { name: 'put-1b', role: 'edge' });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ name: 'put-1b', role: 'edge', hostname: null, platform: null, tags: [], attributes: {} });
    const [entry] = await audits('entity.updated', device.id);
    expect(Object.keys(entry.details_json.changes).sort()).toEqual(['attributes', 'hostname', 'name', 'platform', 'role', 'tags']);
    expect(await outcome(await call('alice', 'PUT', `/devices/${device.id}`, { role: 'edge' }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
  });

  it('answer their version as ETag, and a PUT with If-Match replaces only that version (412 otherwise, nothing written)', async () => {
    const device = await createDevice('alice', { name: 'tagged-1', platform: 'eos' });
    const read = await call('alice', 'GET', `/devices/${device.id}`);
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await call('alice', 'GET', `/devices/${device.id}`)).headers.get('etag')).toBe(etag);
    const put = (body: object, ifMatch: string) =>
      fetch(`${daemon.url}/devices/${device.id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${tokens.alice}`, 'x-org-id': 'acme', 'content-type': 'application/json', 'if-match': ifMatch },
        body: JSON.stringify(body),
      });

    const first = await put({ name: 'tagged-1', platform: 'eos', role: 'core' }, etag);
    expect(first.status).toBe(200);
    const next = first.headers.get('etag')!;
    expect(next).not.toBe(etag);
    expect(next).toBe((await call('alice', 'GET', `/devices/${device.id}`)).headers.get('etag'));

    // The version read before the first PUT is gone: a second writer holding it changes nothing.
    const stale = await put({ name: 'tagged-1', platform: 'junos' }, etag);
    expect(await outcome(stale)).toEqual({ status: 412, code: 'precondition_failed' });
    expect(await (await call('alice', 'GET', `/devices/${device.id}`)).json()).toMatchObject({ platform: 'eos', role: 'core' });
    expect(await audits('entity.updated', device.id)).toHaveLength(1);
    expect((await put({ name: 'tagged-1', platform: 'junos' }, `W/${next}, "other"`)).status).toBe(412);
    expect((await put({ name: 'tagged-1', platform: 'junos' }, `"other", ${next}`)).status).toBe(200);
    expect((await put({ name: 'tagged-1', platform: 'eos' }, '*')).status).toBe(200);
  });

  it('refuse a PUT changing a provider-sourced device, pointing to the overlay', async () => {
    const device = await createDevice('alice', { name: 'synced-1', hostname: '10.1.1.1', platform: 'junos' });
    await fromProvider(device.id, 'netbox:main:' + orgs.acme, '101');
    const read = (await (await call('alice', 'GET', `/devices/${device.id}`)).json()) as Device;
    expect(read).toMatchObject({ provider_managed: true, provider_id: 'netbox:main:' + orgs.acme, external_id: '101' });

    const refused = await call('alice', 'PUT', `/devices/${device.id}`, { name: 'synced-1', hostname: '10.1.1.2', platform: 'junos' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      code: 'provider_managed',
      fields: ['hostname'],
      overlay: `/devices/${device.id}/overlay`,
    });
    expect((await row(device.id)).hostname).toBe('10.1.1.1');
    expect(
      (await call('alice', 'PUT', `/devices/${device.id}`, { name: 'synced-1', hostname: '10.1.1.1', platform: 'junos' })).status,
    ).toBe(200);
  });

  it('carry a local overlay that an operator may set', async () => {
    const device = await createDevice('alice', { name: 'overlay-1', tags: ['own'] });
    await fromProvider(device.id, 'netbox:main:' + orgs.acme, '202');
    const set = await call('olga', 'PATCH', `/devices/${device.id}/overlay`, { tags: ['local', 'local'], maintenance: true });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ tags: ['own'], overlay: { tags: ['local'], maintenance: true } });
    expect(await audits('entity.updated', device.id)).toMatchObject([
      {
        action: 'device:annotate',
        actor_sub: 'sub-olga',
        details_json: { overlay: { old: { tags: [], maintenance: null }, new: { tags: ['local'], maintenance: true } } },
      },
    ]);
    // Sending what is there changes nothing; null removes a member.
    expect((await call('olga', 'PATCH', `/devices/${device.id}/overlay`, { maintenance: true })).status).toBe(200);
    expect(await audits('entity.updated', device.id)).toHaveLength(1);
    const cleared = (await (await call('olga', 'PATCH', `/devices/${device.id}/overlay`, { maintenance: null })).json()) as Device;
    expect(cleared.overlay).toEqual({ tags: ['local'], maintenance: null });
    expect((await row(device.id)).overlay_json).toEqual({ tags: ['local'] });

    for (const body of [{}, { colour: 'red' }, { maintenance: 'yes' }, { tags: 'x' }]) {
      expect(await outcome(await call('olga', 'PATCH', `/devices/${device.id}/overlay`, body))).toEqual({
        status: 422,
        code: 'validation_failed',
      });
    }
    expect(await outcome(await call('victor', 'PATCH', `/devices/${device.id}/overlay`, { maintenance: false }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(await outcome(await call('olga', 'PUT', `/devices/${device.id}`, { name: 'overlay-1' }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
  });

  it('soft-delete, restore and purge, each audited; a restored device whose site is gone loses it', async () => {
    const site = await createSite('alice', 'Doomed Site');
    const device = await createDevice('alice', { name: 'cycle-1', site_id: site });
    expect((await call('alice', 'DELETE', `/devices/${device.id}`)).status).toBe(204);
    expect(await row(device.id)).toMatchObject({ deleted_by: 'sub-alice' });
    expect(await outcome(await call('alice', 'GET', `/devices/${device.id}`))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await outcome(await call('alice', 'PUT', `/devices/${device.id}`, { name: 'x' }))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await outcome(await call('olga', 'PATCH', `/devices/${device.id}/overlay`, { tags: [] }))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect((await call('alice', 'DELETE', `/sites/${site}`)).status).toBe(204);

    const blocker = await createDevice('alice', { name: 'cycle-1' });
    expect(await outcome(await call('alice', 'POST', `/devices/${device.id}/restore`))).toEqual({ status: 409, code: 'conflict' });
    expect((await call('alice', 'DELETE', `/devices/${blocker.id}/permanent`)).status).toBe(204);
    const restored = (await (await call('alice', 'POST', `/devices/${device.id}/restore`)).json()) as Device;
    expect(restored).toMatchObject({ deleted_at: null, site_id: null });
    expect((await audits('entity.restored', device.id))[0].details_json.detached_site_id).toBe(site);

    expect((await call('alice', 'DELETE', `/devices/${device.id}/permanent`)).status).toBe(204);
    expect(await row(device.id)).toBeUndefined();
    expect(await audits('entity.purged', device.id)).toMatchObject([{ action: 'device:purge' }]);
    expect(await audits('entity.deleted', device.id)).toHaveLength(1);
  });

  it('duplicate as a local device under a new name', async () => {
    const site = await createSite('alice', 'Dup Device Site');
    const source = await createDevice('alice', {
      name: 'dup-src',
      hostname: 'dup.example',
      site_id: site,
      tags: ['t'],
      attributes: { k: 'v' },
    });
    await fromProvider(source.id, 'netbox:main:' + orgs.acme, '303');
    await call('olga', 'PATCH', `/devices/${source.id}/overlay`, { maintenance: true });
    const copy = await call('alice', 'POST', `/devices/${source.id}/duplicate`, { name: 'dup-copy' });
    expect(copy.status).toBe(201);
    expect(await copy.json()).toMatchObject({
      name: 'dup-copy',
      hostname: 'dup.example',
      site_id: site,
      tags: ['t'],
      attributes: { k: 'v' },
      provider_id: null,
      overlay: { tags: [], maintenance: null },
    });
    expect(await outcome(await call('alice', 'POST', `/devices/${source.id}/duplicate`, { name: 'dup-src' }))).toEqual({
      status: 409,
      code: 'conflict',
    });

    const shared = await createDevice('sam', { name: 'shared-dup-src', site_id: await createSite('sam', 'Shared Dup Device Site') });
    const fromShared = (await (await call('alice', 'POST', `/devices/${shared.id}/duplicate`, { name: 'from-shared' })).json()) as Device;
    expect(fromShared).toMatchObject({ org_id: orgs.acme, shared: false, site_id: null });
  });
});

describe('device lists and search', () => {
  let siteA: string;
  let siteB: string;
  beforeAll(async () => {
    siteA = await createSite('alice', 'Search A');
    siteB = await createSite('alice', 'Search B');
    await createDevice('alice', {
      name: 'srch-core-1',
      hostname: 'core1.lab',
      platform: 'IOS-XE',
      role: 'core',
      site_id: siteA,
      serial: 'FOC123',
      tags: ['lab', 'blue'],
    });
    await createDevice('alice', {
      name: 'srch-core-2',
      hostname: '10.9.0.2',
      platform: 'junos',
      role: 'core',
      site_id: siteB,
      tags: ['lab'],
    });
    const edge = await createDevice('alice', { name: 'srch-edge-1', platform: 'eos', role: 'edge', site_id: siteA, tags: ['prod'] });
    await fromProvider(edge.id, 'netbox:main:' + orgs.acme, 'e1');
    await call('olga', 'PATCH', `/devices/${edge.id}/overlay`, { tags: ['blue'], maintenance: true });
    const gone = await createDevice('alice', { name: 'srch-gone', platform: 'eos' });
    await call('alice', 'DELETE', `/devices/${gone.id}`);
    await createDevice('sam', { name: 'srch-shared-1', platform: 'eos', tags: ['lab'] });
    await createDevice('bob', { name: 'srch-globex-1', platform: 'eos' });
  });

  it('list with q, site_id, platform, role, tag, paging and include_deleted', async () => {
    expect(await list('victor', '/devices?q=srch')).toMatchObject({
      names: ['srch-core-1', 'srch-core-2', 'srch-edge-1', 'srch-shared-1'],
      total: 4,
    });
    expect((await list('victor', '/devices?q=CORE1.lab')).names).toEqual(['srch-core-1']);
    expect((await list('victor', `/devices?site_id=${siteA}`)).names).toEqual(['srch-core-1', 'srch-edge-1']);
    expect((await list('victor', '/devices?q=srch&platform=ios-xe')).names).toEqual(['srch-core-1']);
    expect((await list('victor', '/devices?q=srch&role=core')).names).toEqual(['srch-core-1', 'srch-core-2']);
    // A tag matches the device's own tags and its overlay's.
    expect((await list('victor', '/devices?q=srch&tag=blue')).names).toEqual(['srch-core-1', 'srch-edge-1']);
    expect(await list('victor', '/devices?q=srch&limit=2&offset=1')).toMatchObject({ names: ['srch-core-2', 'srch-edge-1'], total: 4 });
    const withDeleted = await list('victor', '/devices?q=srch&include_deleted=true');
    expect(withDeleted.names).toContain('srch-gone');
    expect(withDeleted.items.find((d) => d.name === 'srch-shared-1')).toMatchObject({ shared: true, org_id: orgs.shared });
    for (const bad of ['limit=501', 'site_id=x', 'include_deleted=1', 'bogus=1', 'platform=a&platform=b']) {
      expect(await outcome(await call('victor', 'GET', `/devices?${bad}`)), bad).toEqual({ status: 422, code: 'validation_failed' });
    }
  });

  it('search over name, hostname, serial and tags, with repeatable filters', async () => {
    expect((await list('victor', '/devices/search?q=foc12')).names).toEqual(['srch-core-1']);
    expect((await list('victor', '/devices/search?q=srch&platform=eos&platform=junos')).names).toEqual([
      'srch-core-2',
      'srch-edge-1',
      'srch-shared-1',
    ]);
    expect((await list('victor', '/devices/search?q=srch&tag=lab&tag=blue')).names).toEqual(['srch-core-1']);
    expect((await list('victor', `/devices/search?site_id=${siteA}&site_id=${siteB}&role=edge`)).names).toEqual(['srch-edge-1']);
    expect((await list('victor', '/devices/search?q=srch&source=provider')).names).toEqual(['srch-edge-1']);
    expect((await list('victor', `/devices/search?provider_id=netbox:main:${orgs.acme}&q=srch`)).names).toEqual(['srch-edge-1']);
    expect((await list('victor', '/devices/search?q=srch&maintenance=true')).names).toEqual(['srch-edge-1']);
    expect((await list('victor', '/devices/search?q=srch&scope=shared')).names).toEqual(['srch-shared-1']);
    expect((await list('victor', '/devices/search?q=srch&scope=own&sort=-name')).names).toEqual([
      'srch-edge-1',
      'srch-core-2',
      'srch-core-1',
    ]);
    // A search is over live devices only.
    expect((await list('victor', '/devices/search?q=srch-gone')).total).toBe(0);
    for (const bad of ['sort=colour', 'scope=everyone', 'source=x', 'include_deleted=true']) {
      expect(await outcome(await call('victor', 'GET', `/devices/search?${bad}`)), bad).toEqual({ status: 422, code: 'validation_failed' });
    }
  });

  it('answer the ids a search matches, capped at the run-target limit', async () => {
    const all = (await (await call('victor', 'GET', '/devices/search/ids?q=srch')).json()) as {
      ids: string[];
      total: number;
      truncated: boolean;
      limit: number;
    };
    expect(all).toMatchObject({ total: 4, truncated: false, limit: MAX_TARGETS });
    expect(all.ids).toHaveLength(4);
    const core = (await (await call('victor', 'GET', '/devices/search/ids?q=srch&role=core&limit=1')).json()) as {
      ids: string[];
      total: number;
      truncated: boolean;
    };
    expect(core).toMatchObject({ total: 2, truncated: true });
    expect(core.ids).toHaveLength(1);
    const capped = (await (await call('victor', 'GET', '/devices/search/ids?limit=999')).json()) as {
      ids: string[];
      truncated: boolean;
      limit: number;
    };
    expect(capped.ids.length).toBe(MAX_TARGETS);
    expect(capped).toMatchObject({ truncated: true, limit: MAX_TARGETS });
  });
});

describe('bulk device operations', () => {
  it('apply to the found devices in one transaction and answer per id', async () => {
    const a = await createDevice('alice', { name: 'bulk-a' });
    const b = await createDevice('alice', { name: 'bulk-b' });
    const foreign = await createDevice('bob', { name: 'bulk-foreign' });
    const shared = await createDevice('sam', { name: 'bulk-shared' });
    const deleted = await call('alice', 'POST', '/devices/bulk/delete', { ids: [a.id, b.id, foreign.id, shared.id, a.id] });
    expect(await deleted.json()).toEqual({
      results: [
        { id: a.id, status: 'ok' },
        { id: b.id, status: 'ok' },
        { id: foreign.id, status: 'not_found' },
        { id: shared.id, status: 'shared_read_only' },
      ],
    });
    expect((await row(b.id)).deleted_at).not.toBeNull();
    expect((await row(foreign.id)).deleted_at).toBeNull();
    expect(await audits('entity.deleted', a.id)).toHaveLength(1);

    await createDevice('alice', { name: 'bulk-a' });
    const c = await createDevice('alice', { name: 'bulk-c' });
    const restored = (await (await call('alice', 'POST', '/devices/bulk/restore', { ids: [a.id, b.id, c.id] })).json()) as {
      results: unknown[];
    };
    expect(restored.results).toEqual([
      { id: a.id, status: 'conflict' },
      { id: b.id, status: 'ok' },
      { id: c.id, status: 'unchanged' },
    ]);
    expect((await row(b.id)).deleted_at).toBeNull();

    const purged = (await (await call('alice', 'POST', '/devices/bulk/permanent', { ids: [a.id, b.id, shared.id] })).json()) as {
      results: unknown[];
    };
    expect(purged.results).toEqual([
      { id: a.id, status: 'ok' },
      { id: b.id, status: 'ok' },
      { id: shared.id, status: 'shared_read_only' },
    ]);
    expect(await row(a.id)).toBeUndefined();
    expect(await row(shared.id)).toBeDefined();
  });

  it('are refused to non-admins and for malformed id lists', async () => {
    const device = await createDevice('alice', { name: 'bulk-guarded' });
    expect(await outcome(await call('olga', 'POST', '/devices/bulk/delete', { ids: [device.id] }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(await outcome(await call('olga', 'POST', '/devices/bulk/restore', { ids: [device.id] }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(await outcome(await call('olga', 'POST', '/devices/bulk/permanent', { ids: [device.id] }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(await outcome(await call('alice', 'POST', '/devices/bulk/delete', { ids: ['x'] }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
    expect((await row(device.id)).deleted_at).toBeNull();
  });
});

describe('device tenancy', () => {
  it("answers another organization's device with 404 on read, update and delete, changing nothing", async () => {
    const theirs = await createDevice('bob', { name: 'globex-only' });
    const before = await row(theirs.id);
    for (const [who, method, path, body] of [
      ['alice', 'GET', `/devices/${theirs.id}`, undefined],
      ['alice', 'PUT', `/devices/${theirs.id}`, { name: 'hijack' }],
      ['olga', 'PATCH', `/devices/${theirs.id}/overlay`, { maintenance: true }],
      ['alice', 'DELETE', `/devices/${theirs.id}`, undefined],
      ['alice', 'POST', `/devices/${theirs.id}/restore`, undefined],
      ['alice', 'POST', `/devices/${theirs.id}/duplicate`, { name: 'copy' }],
      ['alice', 'DELETE', `/devices/${theirs.id}/permanent`, undefined],
    ] as const) {
      expect(await outcome(await call(who, method, path, body)), `${method} ${path}`).toEqual({ status: 404, code: 'resource_not_found' });
    }
    expect(await row(theirs.id)).toEqual(before);
    expect(await outcome(await call('alice', 'GET', '/devices/nope'))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await outcome(await call('alice', 'PUT', '/devices/nope', { name: 'x' }))).toEqual({ status: 404, code: 'resource_not_found' });
  });

  it("lets every tenant read the shared organization's devices and only that organization change them", async () => {
    const shared = await createDevice('sam', { name: 'shared-core' });
    expect(await (await call('bob', 'GET', `/devices/${shared.id}`)).json()).toMatchObject({
      id: shared.id,
      org_id: orgs.shared,
      shared: true,
    });
    const before = await row(shared.id);
    for (const [who, method, path, body] of [
      ['alice', 'PUT', `/devices/${shared.id}`, { name: 'mine now' }],
      ['olga', 'PATCH', `/devices/${shared.id}/overlay`, { maintenance: true }],
      ['alice', 'DELETE', `/devices/${shared.id}`, undefined],
      ['alice', 'POST', `/devices/${shared.id}/restore`, undefined],
      ['alice', 'DELETE', `/devices/${shared.id}/permanent`, undefined],
    ] as const) {
      expect(await outcome(await call(who, method, path, body)), `${method} ${path}`).toEqual({ status: 403, code: 'shared_read_only' });
    }
    expect(await row(shared.id)).toEqual(before);
    expect((await call('sam', 'PUT', `/devices/${shared.id}`, { name: 'shared-core', role: 'core' })).status).toBe(200);
  });
});

describe('device policies', () => {
  it('let a viewer read, an operator annotate, and only an admin manage or purge', async () => {
    const device = await createDevice('alice', { name: 'policy-device' });
    for (const path of ['/devices', '/devices/search', '/devices/search/ids', `/devices/${device.id}`]) {
      expect((await call('victor', 'GET', path)).status, path).toBe(200);
    }
    for (const who of ['victor', 'olga']) {
      expect(await outcome(await call(who, 'POST', '/devices', { name: `by-${who}` })), who).toEqual({ status: 403, code: 'forbidden' });
      expect(await outcome(await call(who, 'DELETE', `/devices/${device.id}`)), who).toEqual({ status: 403, code: 'forbidden' });
      expect(await outcome(await call(who, 'POST', `/devices/${device.id}/duplicate`, { name: 'x' })), who).toEqual({
        status: 403,
        code: 'forbidden',
      });
      expect(await outcome(await call(who, 'DELETE', `/devices/${device.id}/permanent`)), who).toEqual({ status: 403, code: 'forbidden' });
    }
    expect((await call('olga', 'PATCH', `/devices/${device.id}/overlay`, { tags: ['seen'] })).status).toBe(200);
    expect(await knex()('devices').whereIn('name', ['by-victor', 'by-olga']).select()).toEqual([]);
    expect((await row(device.id)).deleted_at).toBeNull();
  });
});
