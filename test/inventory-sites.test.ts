import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

// Three tenants: acme (admin alice, operator olga, viewer victor), globex (admin bob), and the shared organization (admin sam).
let idp: DevIdp;
let daemon: TestDaemon;
const orgs: Record<string, string> = {};
const tokens: Record<string, string> = {};
const homeOf: Record<string, string> = { alice: 'acme', olga: 'acme', victor: 'acme', bob: 'globex', sam: 'shared', root: 'acme' };
const knex = () => daemon.services.db.knex;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
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
  tokens.root = await idp.mintAccessToken({ sub: 'sub-root', username: 'root', email: 'root@example.test', realmRoles: ['admin'] });
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

interface Site {
  id: string;
  org_id: string;
  shared: boolean;
  name: string;
  description: string | null;
  parent_id: string | null;
  address: string | null;
  tags: string[];
  deleted_at: string | null;
  children?: Site[];
}

async function createSite(who: string, body: Record<string, unknown>): Promise<Site> {
  const response = await call(who, 'POST', '/sites', body);
  expect(response.status, JSON.stringify(body)).toBe(201);
  return (await response.json()) as Site;
}

const row = (id: string) => knex()('sites').where({ id }).first();
const audits = (eventType: string, id: string) => knex()('audit_logs').where({ event_type: eventType, resource_id: id }).select();
const names = (items: { name: string }[]) => items.map((i) => i.name);

describe('sites', () => {
  it('are created, read and audited in the active organization', async () => {
    const site = await createSite('alice', { name: '  Paris DC  ', description: 'main', address: '1 rue X', tags: ['eu', 'dc', 'eu'] });
    expect(site).toMatchObject({
      org_id: orgs.acme,
      shared: false,
      name: 'Paris DC',
      description: 'main',
      address: '1 rue X',
      tags: ['eu', 'dc'],
      parent_id: null,
      deleted_at: null,
    });
    expect(await row(site.id)).toMatchObject({ org_id: orgs.acme, created_by: 'sub-alice', updated_by: 'sub-alice' });
    expect(await (await call('alice', 'GET', `/sites/${site.id}`)).json()).toEqual(site);
    const [entry] = await audits('entity.created', site.id);
    expect(entry).toMatchObject({
      org_id: orgs.acme,
      actor_sub: 'sub-alice',
      resource_type: 'site',
      action: 'site:manage',
      outcome: 'success',
    });
  });

  it.each([
    ['an empty name', { name: '   ' }],
    ['a name of 256 characters', { name: 'x'.repeat(256) }],
    ['a control character in the name', { name: 'a\u0007b' }],
    ['tags that are not strings', { name: 'n1', tags: [1] }],
    ['an unknown member', { name: 'n2', color: 'red' }],
    ['a provider id', { name: 'n3', provider_id: 'netbox:main' }],
    ['a parent that is not a UUID', { name: 'n4', parent_id: 'nope' }],
  ])('refuse %s with 422', async (_what, body) => {
    expect(await outcome(await call('alice', 'POST', '/sites', body))).toEqual({ status: 422, code: 'validation_failed' });
  });

  it('keep names unique among the live sites of an organization, not across organizations', async () => {
    await createSite('alice', { name: 'Lyon' });
    expect(await outcome(await call('alice', 'POST', '/sites', { name: 'Lyon' }))).toEqual({ status: 409, code: 'conflict' });
    await createSite('bob', { name: 'Lyon' });
  });

  it('nest under a live parent of the same organization, and never in a cycle', async () => {
    const region = await createSite('alice', { name: 'Region A' });
    const city = await createSite('alice', { name: 'City A', parent_id: region.id });
    const building = await createSite('alice', { name: 'Building A', parent_id: city.id });
    const foreign = await createSite('bob', { name: 'Globex HQ' });
    expect(await outcome(await call('alice', 'POST', '/sites', { name: 'x1', parent_id: foreign.id }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
    expect(await outcome(await call('alice', 'PATCH', `/sites/${region.id}`, { parent_id: building.id }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
    expect(await outcome(await call('alice', 'PATCH', `/sites/${region.id}`, { parent_id: region.id }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
    expect((await row(region.id)).parent_id).toBeNull();

    const moved = await call('alice', 'PATCH', `/sites/${building.id}`, { parent_id: region.id, tags: ['b'] });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ parent_id: region.id, tags: ['b'] });
    const [entry] = await audits('entity.updated', building.id);
    expect(entry.details_json.changes).toEqual({ parent_id: { old: city.id, new: region.id }, tags: { old: [], new: ['b'] } });
  });

  it('answer a PATCH that changes nothing without writing', async () => {
    const site = await createSite('alice', { name: 'Quiet', tags: ['a'] });
    const response = await call('alice', 'PATCH', `/sites/${site.id}`, { name: 'Quiet', tags: ['a'] });
    expect(response.status).toBe(200);
    expect(await audits('entity.updated', site.id)).toEqual([]);
    expect(await outcome(await call('alice', 'PATCH', `/sites/${site.id}`, {}))).toEqual({ status: 422, code: 'validation_failed' });
  });

  it('answer their version as ETag, and a PATCH with If-Match changes only that version (412 otherwise, nothing written)', async () => {
    const site = await createSite('alice', { name: 'tagged-site', address: 'a' });
    const etag = (await call('alice', 'GET', `/sites/${site.id}`)).headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const patch = (body: object, ifMatch: string) =>
      fetch(`${daemon.url}/sites/${site.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${tokens.alice}`, 'x-org-id': 'acme', 'content-type': 'application/json', 'if-match': ifMatch },
        body: JSON.stringify(body),
      });

    const first = await patch({ address: 'b' }, etag);
    expect(first.status).toBe(200);
    const next = first.headers.get('etag')!;
    expect(next).not.toBe(etag);
    expect(next).toBe((await call('alice', 'GET', `/sites/${site.id}`)).headers.get('etag'));

    // A second writer holding the version read before the first PATCH changes nothing.
    const stale = await patch({ address: 'c', description: 'late' }, etag);
    expect(await outcome(stale)).toEqual({ status: 412, code: 'precondition_failed' });
    expect(await row(site.id)).toMatchObject({ address: 'b', description: null });
    expect(await audits('entity.updated', site.id)).toHaveLength(1);
    expect((await patch({ address: 'd' }, `${next}, "other"`)).status).toBe(200);
    expect((await patch({ address: 'e' }, '*')).status).toBe(200);
    expect((await patch({ address: 'f' }, `W/${etag}`)).status).toBe(412);
  });

  it('list with q, parent_id, paging and include_deleted', async () => {
    const root = await createSite('alice', { name: 'List Root' });
    for (const n of ['List One', 'List Two', 'List Three']) await createSite('alice', { name: n, parent_id: root.id });
    const page = (await (await call('alice', 'GET', `/sites?q=list&limit=2&offset=1`)).json()) as {
      items: Site[];
      total: number;
      limit: number;
      offset: number;
    };
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(names(page.items)).toEqual(['List Root', 'List Three']);
    const children = (await (await call('alice', 'GET', `/sites?parent_id=${root.id}`)).json()) as { items: Site[] };
    expect(names(children.items)).toEqual(['List One', 'List Three', 'List Two']);
    const tops = (await (await call('alice', 'GET', `/sites?parent_id=null&q=list`)).json()) as { items: Site[] };
    expect(names(tops.items)).toEqual(['List Root']);
    // `%` and `_` are literal characters in q.
    expect(((await (await call('alice', 'GET', '/sites?q=%25')).json()) as { total: number }).total).toBe(0);

    const gone = children.items[0]!;
    expect((await call('alice', 'DELETE', `/sites/${gone.id}`)).status).toBe(204);
    expect(names(((await (await call('alice', 'GET', '/sites?q=list')).json()) as { items: Site[] }).items)).not.toContain('List One');
    const withDeleted = (await (await call('alice', 'GET', '/sites?q=list&include_deleted=true')).json()) as { items: Site[] };
    expect(withDeleted.items.find((s) => s.id === gone.id)?.deleted_at).toEqual(expect.any(String));
    for (const bad of ['limit=0', 'limit=501', 'offset=-1', 'parent_id=nope', 'include_deleted=yes', 'colour=red']) {
      expect(await outcome(await call('alice', 'GET', `/sites?${bad}`)), bad).toEqual({ status: 422, code: 'validation_failed' });
    }
  });

  it('form a tree of own and shared sites', async () => {
    const top = await createSite('alice', { name: 'Tree Top' });
    const mid = await createSite('alice', { name: 'Tree Mid', parent_id: top.id });
    await createSite('alice', { name: 'Tree Leaf', parent_id: mid.id });
    const sharedTop = await createSite('sam', { name: 'Shared Tree' });
    await createSite('sam', { name: 'Shared Child', parent_id: sharedTop.id });
    const tree = (await (await call('victor', 'GET', '/sites/tree')).json()) as { items: Site[] };
    const node = tree.items.find((s) => s.id === top.id)!;
    expect(node.children!.map((c) => [c.name, c.children!.map((g) => g.name)])).toEqual([['Tree Mid', ['Tree Leaf']]]);
    const shared = tree.items.find((s) => s.id === sharedTop.id)!;
    expect(shared).toMatchObject({ shared: true, org_id: orgs.shared });
    expect(names(shared.children!)).toEqual(['Shared Child']);
    expect(tree.items.every((s) => s.org_id !== orgs.globex)).toBe(true);
  });

  it('soft-delete, restore and purge, each audited', async () => {
    const site = await createSite('alice', { name: 'Cycle' });
    expect((await call('alice', 'DELETE', `/sites/${site.id}`)).status).toBe(204);
    expect(await row(site.id)).toMatchObject({ deleted_by: 'sub-alice' });
    expect(await outcome(await call('alice', 'GET', `/sites/${site.id}`))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await outcome(await call('alice', 'PATCH', `/sites/${site.id}`, { name: 'x' }))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await outcome(await call('alice', 'DELETE', `/sites/${site.id}`))).toEqual({ status: 404, code: 'resource_not_found' });

    // The name is free while the site is deleted; restoring then collides.
    const usurper = await createSite('alice', { name: 'Cycle' });
    expect(await outcome(await call('alice', 'POST', `/sites/${site.id}/restore`))).toEqual({ status: 409, code: 'conflict' });
    expect((await call('alice', 'DELETE', `/sites/${usurper.id}/permanent`)).status).toBe(204);
    const restored = await call('alice', 'POST', `/sites/${site.id}/restore`);
    expect(restored.status).toBe(200);
    expect(await restored.json()).toMatchObject({ id: site.id, deleted_at: null });
    // Restoring a live site changes nothing.
    expect((await call('alice', 'POST', `/sites/${site.id}/restore`)).status).toBe(200);
    expect(await audits('entity.restored', site.id)).toHaveLength(1);

    expect((await call('alice', 'DELETE', `/sites/${site.id}/permanent`)).status).toBe(204);
    expect(await row(site.id)).toBeUndefined();
    expect(await audits('entity.deleted', site.id)).toHaveLength(1);
    expect(await audits('entity.purged', site.id)).toMatchObject([{ action: 'site:purge', resource_type: 'site' }]);
    expect(await audits('entity.purged', usurper.id)).toHaveLength(1);
  });

  it('refuse to soft-delete a site with live children or devices, and detach them on purge', async () => {
    const parent = await createSite('alice', { name: 'Busy Parent' });
    const child = await createSite('alice', { name: 'Busy Child', parent_id: parent.id });
    expect(await outcome(await call('alice', 'DELETE', `/sites/${parent.id}`))).toEqual({ status: 409, code: 'site_in_use' });
    const [device] = await knex()('devices').insert({ org_id: orgs.acme, name: 'busy-device', site_id: child.id }).returning('id');
    expect(await outcome(await call('alice', 'DELETE', `/sites/${child.id}`))).toEqual({ status: 409, code: 'site_in_use' });
    expect((await row(child.id)).deleted_at).toBeNull();

    expect((await call('alice', 'DELETE', `/sites/${parent.id}/permanent`)).status).toBe(204);
    expect((await row(child.id)).parent_id).toBeNull();
    expect((await call('alice', 'DELETE', `/sites/${child.id}/permanent`)).status).toBe(204);
    expect((await knex()('devices').where({ id: device.id }).first()).site_id).toBeNull();
  });

  it('restore at the top level when the parent is gone', async () => {
    const parent = await createSite('alice', { name: 'Lost Parent' });
    const child = await createSite('alice', { name: 'Orphan', parent_id: parent.id });
    expect((await call('alice', 'DELETE', `/sites/${child.id}`)).status).toBe(204);
    expect((await call('alice', 'DELETE', `/sites/${parent.id}`)).status).toBe(204);
    const restored = (await (await call('alice', 'POST', `/sites/${child.id}/restore`)).json()) as Site;
    expect(restored.parent_id).toBeNull();
    const [entry] = await audits('entity.restored', child.id);
    expect(entry.details_json.detached_parent_id).toBe(parent.id);
  });

  it('duplicate under a new name, own or shared', async () => {
    const parent = await createSite('alice', { name: 'Dup Parent' });
    const source = await createSite('alice', { name: 'Dup Source', description: 'd', tags: ['t'], parent_id: parent.id });
    const copy = await call('alice', 'POST', `/sites/${source.id}/duplicate`, { name: 'Dup Copy' });
    expect(copy.status).toBe(201);
    const body = (await copy.json()) as Site;
    expect(body).toMatchObject({ name: 'Dup Copy', description: 'd', tags: ['t'], parent_id: parent.id, org_id: orgs.acme });
    expect(body.id).not.toBe(source.id);
    expect((await audits('entity.created', body.id))[0].details_json.duplicated_from).toBe(source.id);
    expect(await outcome(await call('alice', 'POST', `/sites/${source.id}/duplicate`, { name: 'Dup Source' }))).toEqual({
      status: 409,
      code: 'conflict',
    });
    expect(await outcome(await call('alice', 'POST', `/sites/${source.id}/duplicate`, {}))).toEqual({
      status: 422,
      code: 'validation_failed',
    });

    const sharedParent = await createSite('sam', { name: 'Shared Dup Parent' });
    const shared = await createSite('sam', { name: 'Shared Dup', parent_id: sharedParent.id });
    const fromShared = (await (await call('alice', 'POST', `/sites/${shared.id}/duplicate`, { name: 'From Shared' })).json()) as Site;
    expect(fromShared).toMatchObject({ org_id: orgs.acme, shared: false, parent_id: null });
  });

  it('refuse changes to a provider-sourced site', async () => {
    const site = await createSite('alice', { name: 'Synced Site' });
    await knex()('sites').where({ id: site.id }).update({ provider_id: 'netbox:main:x', external_id: '17' });
    const refused = await call('alice', 'PATCH', `/sites/${site.id}`, { name: 'Renamed', address: 'a' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'provider_managed', fields: ['name', 'address'] });
    expect((await row(site.id)).name).toBe('Synced Site');
    expect((await call('alice', 'PATCH', `/sites/${site.id}`, { name: 'Synced Site' })).status).toBe(200);
  });
});

describe('bulk site operations', () => {
  it('apply to the found sites in one transaction and answer per id', async () => {
    const a = await createSite('alice', { name: 'Bulk A' });
    const b = await createSite('alice', { name: 'Bulk B', parent_id: a.id });
    const c = await createSite('alice', { name: 'Bulk C' });
    const busy = await createSite('alice', { name: 'Bulk Busy' });
    const busyParent = await createSite('alice', { name: 'Bulk Busy Parent' });
    await knex()('sites').where({ id: busy.id }).update({ parent_id: busyParent.id });
    await knex()('devices').insert({ org_id: orgs.acme, name: 'bulk-device', site_id: busy.id });
    const foreign = await createSite('bob', { name: 'Bulk Foreign' });
    const shared = await createSite('sam', { name: 'Bulk Shared' });
    const unknown = '00000000-0000-4000-8000-000000000000';

    const deleted = await call('alice', 'POST', '/sites/bulk/delete', {
      ids: [a.id, b.id, a.id, busyParent.id, busy.id, foreign.id, shared.id, unknown],
    });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({
      results: [
        { id: a.id, status: 'ok' },
        { id: b.id, status: 'ok' },
        { id: busyParent.id, status: 'in_use' },
        { id: busy.id, status: 'in_use' },
        { id: foreign.id, status: 'not_found' },
        { id: shared.id, status: 'shared_read_only' },
        { id: unknown, status: 'not_found' },
      ],
    });
    expect((await row(a.id)).deleted_at).not.toBeNull();
    expect((await row(busy.id)).deleted_at).toBeNull();
    expect((await row(foreign.id)).deleted_at).toBeNull();
    expect((await row(shared.id)).deleted_at).toBeNull();

    await createSite('alice', { name: 'Bulk A' });
    const restored = (await (await call('alice', 'POST', '/sites/bulk/restore', { ids: [a.id, b.id, c.id] })).json()) as {
      results: unknown[];
    };
    expect(restored.results).toEqual([
      { id: a.id, status: 'conflict' },
      { id: b.id, status: 'ok' },
      { id: c.id, status: 'unchanged' },
    ]);
    // b's parent a stayed deleted: b came back at the top level.
    expect(await row(b.id)).toMatchObject({ deleted_at: null, parent_id: null });

    const purged = (await (await call('alice', 'POST', '/sites/bulk/permanent', { ids: [a.id, c.id, shared.id] })).json()) as {
      results: unknown[];
    };
    expect(purged.results).toEqual([
      { id: a.id, status: 'ok' },
      { id: c.id, status: 'ok' },
      { id: shared.id, status: 'shared_read_only' },
    ]);
    expect(await row(a.id)).toBeUndefined();
    expect(await row(shared.id)).toBeDefined();
    expect(await audits('entity.purged', c.id)).toHaveLength(1);
  });

  it('refuse malformed or oversized id lists', async () => {
    for (const body of [{}, { ids: [] }, { ids: ['nope'] }, { ids: Array.from({ length: 1001 }, () => crypto.randomUUID()) }]) {
      expect(await outcome(await call('alice', 'POST', '/sites/bulk/delete', body))).toEqual({ status: 422, code: 'validation_failed' });
    }
  });

  it('are refused to non-admins', async () => {
    const site = await createSite('alice', { name: 'Bulk Guarded' });
    expect(await outcome(await call('olga', 'POST', '/sites/bulk/delete', { ids: [site.id] }))).toEqual({ status: 403, code: 'forbidden' });
    expect(await outcome(await call('olga', 'POST', '/sites/bulk/permanent', { ids: [site.id] }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
  });
});

describe('site tenancy', () => {
  it("answers another organization's site with 404 on read, update and delete, changing nothing", async () => {
    const theirs = await createSite('bob', { name: 'Globex Only' });
    const before = await row(theirs.id);
    for (const [method, path, body] of [
      ['GET', `/sites/${theirs.id}`, undefined],
      ['PATCH', `/sites/${theirs.id}`, { name: 'hijack' }],
      ['DELETE', `/sites/${theirs.id}`, undefined],
      ['POST', `/sites/${theirs.id}/restore`, undefined],
      ['POST', `/sites/${theirs.id}/duplicate`, { name: 'copy of theirs' }],
      ['DELETE', `/sites/${theirs.id}/permanent`, undefined],
    ] as const) {
      expect(await outcome(await call('alice', method, path, body)), `${method} ${path}`).toEqual({
        status: 404,
        code: 'resource_not_found',
      });
    }
    expect(await row(theirs.id)).toEqual(before);
    const listed = (await (await call('alice', 'GET', '/sites?q=Globex')).json()) as { items: Site[] };
    expect(listed.items).toEqual([]);
  });

  it('answers a path id that is not a UUID with 404', async () => {
    expect(await outcome(await call('alice', 'GET', '/sites/not-a-uuid'))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await outcome(await call('alice', 'DELETE', '/sites/not-a-uuid'))).toEqual({ status: 404, code: 'resource_not_found' });
  });

  it("lets every tenant read the shared organization's sites and only that organization change them", async () => {
    const shared = await createSite('sam', { name: 'Shared POP', tags: ['pop'] });
    const read = (await (await call('bob', 'GET', `/sites/${shared.id}`)).json()) as Site;
    expect(read).toMatchObject({ id: shared.id, org_id: orgs.shared, shared: true });
    const listed = (await (await call('victor', 'GET', '/sites?q=Shared%20POP')).json()) as { items: Site[] };
    expect(listed.items.map((s) => [s.id, s.shared])).toEqual([[shared.id, true]]);
    const before = await row(shared.id);
    for (const [method, path, body] of [
      ['PATCH', `/sites/${shared.id}`, { name: 'mine now' }],
      ['DELETE', `/sites/${shared.id}`, undefined],
      ['POST', `/sites/${shared.id}/restore`, undefined],
      ['DELETE', `/sites/${shared.id}/permanent`, undefined],
    ] as const) {
      expect(await outcome(await call('alice', method, path, body)), `${method} ${path}`).toEqual({
        status: 403,
        code: 'shared_read_only',
      });
    }
    expect(await row(shared.id)).toEqual(before);
    // In its own organization the row is an ordinary one.
    expect(await (await call('sam', 'GET', `/sites/${shared.id}`)).json()).toMatchObject({ shared: false });
    expect((await call('sam', 'PATCH', `/sites/${shared.id}`, { description: 'edge' })).status).toBe(200);
  });

  it("hides the shared organization's soft-deleted sites from other tenants", async () => {
    const shared = await createSite('sam', { name: 'Shared Gone' });
    expect((await call('sam', 'DELETE', `/sites/${shared.id}`)).status).toBe(204);
    expect(await outcome(await call('alice', 'POST', `/sites/${shared.id}/restore`))).toEqual({ status: 404, code: 'resource_not_found' });
    const listed = (await (await call('alice', 'GET', '/sites?include_deleted=true&q=Shared%20Gone')).json()) as { total: number };
    expect(listed.total).toBe(0);
  });
});

describe('site policies', () => {
  it('let a viewer read, and only an admin manage or purge', async () => {
    const site = await createSite('alice', { name: 'Policy Site' });
    expect((await call('victor', 'GET', '/sites')).status).toBe(200);
    expect((await call('victor', 'GET', `/sites/${site.id}`)).status).toBe(200);
    expect((await call('victor', 'GET', '/sites/tree')).status).toBe(200);
    for (const who of ['victor', 'olga']) {
      expect(await outcome(await call(who, 'POST', '/sites', { name: `by ${who}` })), who).toEqual({ status: 403, code: 'forbidden' });
      expect(await outcome(await call(who, 'PATCH', `/sites/${site.id}`, { name: 'x' })), who).toEqual({ status: 403, code: 'forbidden' });
      expect(await outcome(await call(who, 'DELETE', `/sites/${site.id}`)), who).toEqual({ status: 403, code: 'forbidden' });
      expect(await outcome(await call(who, 'DELETE', `/sites/${site.id}/permanent`)), who).toEqual({ status: 403, code: 'forbidden' });
    }
    expect(await knex()('sites').whereIn('name', ['by victor', 'by olga']).select()).toEqual([]);
    // A platform admin acts in whichever organization it names.
    expect((await call('root', 'PATCH', `/sites/${site.id}`, { description: 'by root' })).status).toBe(200);
  });
});
