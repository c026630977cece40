import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

let idp: DevIdp;
let daemon: TestDaemon;
const ids: Record<string, string> = {};
const as: Record<string, string> = {};

const knex = () => daemon.services.db.knex;

async function bearer(sub: string, username: string, email: string, realmRoles: string[] = []): Promise<string> {
  return `Bearer ${await idp.mintAccessToken({ sub, username, email, realmRoles })}`;
}

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer });
  const db = knex();
  ids.acme = await seedOrg(db, 'acme', 'Acme');
  ids.globex = await seedOrg(db, 'globex', 'Globex');
  ids.alice = await seedUser(db, { sub: 'sub-alice', username: 'alice', email: 'alice@acme.test' }, [{ orgSlug: 'acme', role: 'admin' }]);
  ids.bob = await seedUser(db, { sub: 'sub-bob', username: 'bob', email: 'bob@globex.test' }, [{ orgSlug: 'globex', role: 'admin' }]);
  ids.carol = await seedUser(db, { sub: 'sub-carol', username: 'carol', email: 'carol@acme.test' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  ids.dave = await seedUser(db, { sub: 'sub-dave', username: 'dave', email: 'dave@acme.test' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await db('org_memberships').where({ user_id: ids.dave, org_id: ids.acme }).update({ source: 'idp' });
  ids.erin = await seedUser(db, { sub: 'sub-erin', username: 'erin', email: 'erin@example.test' });
  ids.frank = await seedUser(db, { sub: 'sub-frank', username: 'frank', email: 'frank@example.test', isActive: false });
  as.root = await bearer('sub-root', 'root', 'root@platform.test', ['admin']);
  as.alice = await bearer('sub-alice', 'alice', 'alice@acme.test', ['operator']);
  as.bob = await bearer('sub-bob', 'bob', 'bob@globex.test');
  as.carol = await bearer('sub-carol', 'carol', 'carol@acme.test');
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

function call(who: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const authorization = as[who] ?? who;
  return fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function problem(response: Response): Promise<{ status: number; code: string; rule?: string }> {
  const body = (await response.json()) as { code: string; rule?: string };
  return { status: response.status, code: body.code, ...(body.rule ? { rule: body.rule } : {}) };
}

const audits = (eventType: string, resourceId: string) =>
  knex()('audit_logs').where({ event_type: eventType, resource_id: resourceId }).orderBy('ts').select();
const membership = (orgId: string, userId: string) => knex()('org_memberships').where({ org_id: orgId, user_id: userId }).first();

interface OrgBody {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  is_active: boolean;
  is_default: boolean;
  is_shared: boolean;
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}
interface ListItem extends OrgBody {
  role: string | null;
  source: string | null;
  access: string;
}
interface MemberBody {
  user_id: string;
  username: string;
  email: string | null;
  role: string;
  source: string;
  created_at: string;
  updated_at: string;
}

async function listSlugs(who: string, query = ''): Promise<Map<string, ListItem>> {
  const response = await call(who, 'GET', `/orgs${query}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { items: ListItem[]; total: number };
  return new Map(body.items.map((item) => [item.slug, item]));
}

describe('organizations', () => {
  it('are created with a URL-safe slug, answered in full, and audited', async () => {
    const response = await call('root', 'POST', '/orgs', {
      slug: 'initech',
      name: 'Initech',
      description: 'TPS reports',
      settings: { tier: 'gold' },
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as OrgBody;
    expect(created).toMatchObject({
      slug: 'initech',
      name: 'Initech',
      description: 'TPS reports',
      is_active: true,
      is_default: false,
      is_shared: false,
      settings: { tier: 'gold' },
    });
    expect(Object.keys(created).sort()).toEqual([
      'created_at',
      'description',
      'id',
      'is_active',
      'is_default',
      'is_shared',
      'name',
      'settings',
      'slug',
      'updated_at',
    ]);
    ids.initech = created.id;
    expect(await knex()('organizations').where({ id: created.id }).first()).toMatchObject({
      slug: 'initech',
      settings_json: { tier: 'gold' },
    });

    const [entry] = await audits('org.created', created.id);
    expect(entry).toMatchObject({
      org_id: created.id,
      actor_sub: 'sub-root',
      action: 'org:manage',
      resource_type: 'organization',
      outcome: 'success',
    });
    expect(entry.details_json).toMatchObject({ slug: 'initech', name: 'Initech' });

    const read = await call('root', 'GET', '/orgs/initech');
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(created);
    expect(await (await call('root', 'GET', `/orgs/${created.id}`)).json()).toEqual(created);
  });

  it.each([
    ['an upper-case slug', { slug: 'Acme2', name: 'x' }],
    ['a slug with a space', { slug: 'bad slug', name: 'x' }],
    ['a one-character slug', { slug: 'a', name: 'x' }],
    ['a slug of 101 characters', { slug: 'a'.repeat(101), name: 'x' }],
    ['a leading hyphen', { slug: '-abc', name: 'x' }],
    ['a double hyphen', { slug: 'ab--c', name: 'x' }],
    ['a UUID slug', { slug: '123e4567-e89b-12d3-a456-426614174000', name: 'x' }],
    ['no name', { slug: 'nameless' }],
    ['an unknown field', { slug: 'extra', name: 'x', is_default: true }],
    ['settings that are not an object', { slug: 'listy', name: 'x', settings: [1, 2] }],
  ])('refuse %s with 422 validation_failed, creating nothing', async (_, body) => {
    const before = await knex()('organizations').count<{ n: string }[]>('* as n');
    expect(await problem(await call('root', 'POST', '/orgs', body))).toEqual({ status: 422, code: 'validation_failed' });
    const after = await knex()('organizations').count<{ n: string }[]>('* as n');
    expect(Number(after[0]!.n)).toBe(Number(before[0]!.n));
  });

  it('refuse a duplicate slug with 409 conflict', async () => {
    expect(await problem(await call('root', 'POST', '/orgs', { slug: 'acme', name: 'Another Acme' }))).toEqual({
      status: 409,
      code: 'conflict',
    });
    expect(await knex()('organizations').where({ slug: 'acme' }).select('name')).toEqual([{ name: 'Acme' }]);
  });

  it('are created, changed and deleted by platform admins only', async () => {
    expect((await call('alice', 'POST', '/orgs', { slug: 'alices', name: 'x' })).status).toBe(403);
    expect((await call('alice', 'PATCH', '/orgs/acme', { name: 'Mine now' })).status).toBe(403);
    expect((await call('alice', 'DELETE', '/orgs/acme')).status).toBe(403);
    expect(await knex()('organizations').where({ slug: 'acme' }).first()).toMatchObject({ name: 'Acme' });
  });

  it('are renamed, described and given new settings, with the old and new values audited', async () => {
    const response = await call('root', 'PATCH', '/orgs/initech', {
      name: 'Initech Corp',
      description: null,
      settings: { tier: 'silver' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ slug: 'initech', name: 'Initech Corp', description: null, settings: { tier: 'silver' } });
    const [entry] = await audits('org.updated', ids.initech!);
    expect(entry).toMatchObject({ org_id: ids.initech, actor_sub: 'sub-root', action: 'org:manage' });
    expect(entry.details_json.changes).toEqual({
      name: { old: 'Initech', new: 'Initech Corp' },
      description: { old: 'TPS reports', new: null },
      settings: { old: { tier: 'gold' }, new: { tier: 'silver' } },
    });
  });

  it('keep their slug: sending one is 422 validation_failed', async () => {
    expect(await problem(await call('root', 'PATCH', '/orgs/initech', { slug: 'initrode' }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
    expect(await problem(await call('root', 'PATCH', '/orgs/initech', { slug: 'initech', name: 'Same' }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
    expect(await problem(await call('root', 'PATCH', '/orgs/initech', {}))).toEqual({ status: 422, code: 'validation_failed' });
    expect(await knex()('organizations').where({ id: ids.initech }).first()).toMatchObject({ slug: 'initech', name: 'Initech Corp' });
  });

  it('answer 404 resource_not_found for an unknown organization', async () => {
    expect(await problem(await call('root', 'PATCH', '/orgs/no-such-org', { name: 'x' }))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await problem(await call('root', 'DELETE', '/orgs/00000000-0000-4000-8000-000000000000'))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
  });

  it('protect the default organization from deactivation and deletion (422, rule default_org_protected)', async () => {
    const deactivate = await problem(await call('root', 'PATCH', '/orgs/default', { is_active: false }));
    expect(deactivate).toEqual({ status: 422, code: 'validation_failed', rule: 'default_org_protected' });
    const remove = await problem(await call('root', 'DELETE', '/orgs/default'));
    expect(remove).toEqual({ status: 422, code: 'validation_failed', rule: 'default_org_protected' });
    expect(await knex()('organizations').where({ is_default: true }).first()).toMatchObject({ slug: 'default', is_active: true });
    expect((await call('root', 'PATCH', '/orgs/default', { name: 'Everyone' })).status).toBe(200);
  });

  it('are deactivated (hidden from members, refused on their routes at once) and reactivated', async () => {
    expect((await call('bob', 'GET', '/orgs/globex')).status).toBe(200);
    const off = await call('root', 'PATCH', '/orgs/globex', { is_active: false });
    expect(off.status).toBe(200);
    expect(((await off.json()) as OrgBody).is_active).toBe(false);
    expect((await listSlugs('bob')).has('globex')).toBe(false);
    expect((await call('bob', 'GET', '/orgs/globex')).status).toBe(403);
    expect((await listSlugs('root')).has('globex')).toBe(false);
    expect((await listSlugs('root', '?include_inactive=true')).get('globex')).toMatchObject({ is_active: false });
    const entries = await audits('org.updated', ids.globex!);
    expect(entries.at(-1)!.details_json.changes).toEqual({ is_active: { old: true, new: false } });

    expect((await call('root', 'PATCH', '/orgs/globex', { is_active: true })).status).toBe(200);
    expect((await call('bob', 'GET', '/orgs/globex')).status).toBe(200);
    expect((await listSlugs('bob')).get('globex')).toMatchObject({ role: 'admin', source: 'manual', access: 'member' });
    expect((await audits('org.updated', ids.globex!)).at(-1)!.details_json.changes).toEqual({ is_active: { old: false, new: true } });
  });

  it('designate one shared organization: setting it elsewhere moves the mark, both audited', async () => {
    const first = await call('root', 'PATCH', '/orgs/initech', { is_shared: true });
    expect(((await first.json()) as OrgBody).is_shared).toBe(true);
    const second = await call('root', 'PATCH', '/orgs/globex', { is_shared: true });
    expect(second.status).toBe(200);
    expect(((await second.json()) as OrgBody).is_shared).toBe(true);
    expect(await knex()('organizations').where({ is_shared: true }).select('slug')).toEqual([{ slug: 'globex' }]);
    expect((await audits('org.updated', ids.initech!)).at(-1)).toMatchObject({ org_id: ids.initech });
    expect((await audits('org.updated', ids.initech!)).at(-1)!.details_json).toMatchObject({
      changes: { is_shared: { old: true, new: false } },
      shared_moved_to: 'globex',
    });
    expect((await audits('org.updated', ids.globex!)).at(-1)!.details_json).toMatchObject({
      changes: { is_shared: { old: false, new: true } },
      shared_moved_from: ['initech'],
    });
    // The database holds the rule too.
    await expect(knex()('organizations').where({ id: ids.initech }).update({ is_shared: true })).rejects.toMatchObject({ code: '23505' });
  });

  it('are listed per caller: all for a platform admin, own plus the shared one (marked) for others', async () => {
    const all = await listSlugs('root');
    expect([...all.keys()]).toEqual(expect.arrayContaining(['default', 'acme', 'globex', 'initech']));
    expect(all.get('acme')).toMatchObject({ role: null, access: 'platform_admin' });

    const alices = await listSlugs('alice');
    expect([...alices.keys()].sort()).toEqual(['acme', 'globex']);
    expect(alices.get('acme')).toMatchObject({ role: 'admin', source: 'manual', access: 'member', is_shared: false });
    expect(alices.get('globex')).toMatchObject({ role: null, source: null, access: 'shared', is_shared: true });

    const carols = await listSlugs('carol');
    expect(carols.get('acme')).toMatchObject({ role: 'viewer', access: 'member' });
    expect(carols.has('initech')).toBe(false);

    expect(await problem(await call('alice', 'GET', '/orgs?include_inactive=true'))).toEqual({ status: 403, code: 'forbidden' });
    expect(await problem(await call('root', 'GET', '/orgs?limit=0'))).toEqual({ status: 422, code: 'validation_failed' });

    const page = (await (await call('root', 'GET', '/orgs?limit=2&offset=1')).json()) as {
      items: ListItem[];
      total: number;
      limit: number;
      offset: number;
    };
    expect(page.items).toHaveLength(2);
    expect(page).toMatchObject({ limit: 2, offset: 1 });
    expect(page.total).toBe(all.size);
  });

  it('are listed to a personal access token as its own organization and the shared one', async () => {
    const issued = await call('root', 'POST', '/api-tokens', { name: 'alice in acme', username: 'alice', org: 'acme' });
    expect(issued.status).toBe(201);
    const { token } = (await issued.json()) as { token: string };
    const slugs = await listSlugs(`Bearer ${token}`);
    expect([...slugs.keys()].sort()).toEqual(['acme', 'globex']);
    // A token has no realm role: even a platform admin's token lists like a member's.
    expect(await problem(await call(`Bearer ${token}`, 'GET', '/orgs?include_inactive=true'))).toEqual({ status: 403, code: 'forbidden' });
  });

  it('are deleted with their memberships (204), the entry keeping the id', async () => {
    const doomed = ((await (await call('root', 'POST', '/orgs', { slug: 'doomed', name: 'Doomed' })).json()) as OrgBody).id;
    await knex()('org_memberships').insert({ org_id: doomed, user_id: ids.erin, role: 'admin' });
    expect((await call('root', 'DELETE', '/orgs/doomed')).status).toBe(204);
    expect(await knex()('organizations').where({ id: doomed }).first()).toBeUndefined();
    expect(await knex()('org_memberships').where({ org_id: doomed }).select()).toEqual([]);
    const [entry] = await audits('org.deleted', doomed);
    expect(entry).toMatchObject({ org_id: null, actor_sub: 'sub-root', resource_type: 'organization', action: 'org:manage' });
    expect(entry.details_json).toMatchObject({ org_id: doomed, slug: 'doomed' });
    // The creation entry survives with its organization set to NULL.
    expect((await audits('org.created', doomed))[0]).toMatchObject({ org_id: null });
    expect(await problem(await call('root', 'DELETE', '/orgs/doomed'))).toEqual({ status: 404, code: 'resource_not_found' });
  });

  it("never give a deleted organization's slug to another (409 org_slug_retired), nothing created", async () => {
    const gone = ((await (await call('root', 'POST', '/orgs', { slug: 'gone-eu', name: 'Gone' })).json()) as OrgBody).id;
    expect((await call('root', 'DELETE', '/orgs/gone-eu')).status).toBe(204);
    expect(await knex()('retired_org_slugs').where({ slug: 'gone-eu' }).first('org_id')).toEqual({ org_id: gone });
    expect(await problem(await call('root', 'POST', '/orgs', { slug: 'gone-eu', name: 'New tenant' }))).toEqual({
      status: 409,
      code: 'org_slug_retired',
    });
    expect(await knex()('organizations').where({ slug: 'gone-eu' }).select()).toEqual([]);
    const created = await knex()('audit_logs').where({ event_type: 'org.created' }).whereRaw("details_json->>'slug' = ?", ['gone-eu']);
    expect(created.map((entry: { resource_id: string }) => entry.resource_id)).toEqual([gone]);
  });
});

describe('members', () => {
  it('are listed to any member, with user, role, source and times', async () => {
    const response = await call('carol', 'GET', '/orgs/acme/members');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { items: MemberBody[]; total: number };
    expect(body.items.map((m) => m.username)).toEqual(['alice', 'carol', 'dave']);
    expect(body.total).toBe(3);
    expect(body.items[0]).toMatchObject({ user_id: ids.alice, email: 'alice@acme.test', role: 'admin', source: 'manual' });
    expect(body.items[2]).toMatchObject({ user_id: ids.dave, role: 'operator', source: 'idp' });
    expect(Object.keys(body.items[0]!).sort()).toEqual(['created_at', 'email', 'role', 'source', 'updated_at', 'user_id', 'username']);
  });

  it('list addable users: active, not yet members, filtered by a username or e-mail prefix', async () => {
    const all = (await (await call('alice', 'GET', '/orgs/acme/addable-users')).json()) as { items: { id: string; username: string }[] };
    const names = all.items.map((u) => u.username);
    expect(names).toContain('erin');
    expect(names).not.toContain('frank');
    expect(names).not.toContain('alice');
    expect(names).not.toContain('dave');
    const byPrefix = (await (await call('alice', 'GET', '/orgs/acme/addable-users?q=er')).json()) as { items: { username: string }[] };
    expect(byPrefix.items.map((u) => u.username)).toEqual(['erin']);
    const byMail = (await (await call('alice', 'GET', '/orgs/acme/addable-users?q=erin@exa')).json()) as { items: { username: string }[] };
    expect(byMail.items.map((u) => u.username)).toEqual(['erin']);
    const wildcard = (await (await call('alice', 'GET', '/orgs/acme/addable-users?q=%25')).json()) as { items: unknown[] };
    expect(wildcard.items).toEqual([]);
    expect((await call('carol', 'GET', '/orgs/acme/addable-users')).status).toBe(403);
  });

  it("list addable users to an organization admin without other tenants' members, who are found by exact username or e-mail only", async () => {
    const usernames = async (who: string, query = '') =>
      ((await (await call(who, 'GET', `/orgs/acme/addable-users${query}`)).json()) as { items: { username: string }[] }).items.map(
        (u) => u.username,
      );
    // bob is globex's: not listed to acme's admin, by no prefix of his name or address.
    expect(await usernames('alice')).not.toContain('bob');
    expect(await usernames('alice', '?q=b')).toEqual([]);
    expect(await usernames('alice', '?q=bob@glo')).toEqual([]);
    // ...but found by his exact username or e-mail, in any case.
    expect(await usernames('alice', '?q=bob')).toEqual(['bob']);
    expect(await usernames('alice', '?q=BOB@globex.test')).toEqual(['bob']);
    // A member of another organization alice administers is one she knows of.
    await seedOrg(knex(), 'acme-labs', 'Acme Labs');
    await knex()('org_memberships').insert({
      org_id: (await knex()('organizations').where({ slug: 'acme-labs' }).first()).id,
      user_id: ids.alice,
      role: 'admin',
      source: 'manual',
    });
    await seedUser(knex(), { sub: 'sub-hana', username: 'hana', email: 'hana@labs.test' }, [{ orgSlug: 'acme-labs', role: 'viewer' }]);
    expect(await usernames('alice', '?q=ha')).toEqual(['hana']);
    // A platform admin searches everyone.
    expect(await usernames('root', '?q=b')).toEqual(['bob']);
    expect(await usernames('root')).toEqual(expect.arrayContaining(['bob', 'erin', 'hana']));
  });

  it('are added by username or id (201, source manual), audited, and a second time is 409', async () => {
    const added = await call('alice', 'POST', '/orgs/acme/members', { username: 'erin', role: 'operator' });
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({ user_id: ids.erin, username: 'erin', role: 'operator', source: 'manual' });
    expect(await membership(ids.acme!, ids.erin!)).toMatchObject({ role: 'operator', source: 'manual' });
    const [entry] = await audits('org_member.added', ids.erin!);
    expect(entry).toMatchObject({ org_id: ids.acme, actor_sub: 'sub-alice', action: 'org_member:manage', resource_type: 'org_membership' });
    expect(entry.details_json).toMatchObject({ user: 'erin', role: 'operator', source: 'manual' });

    expect(await problem(await call('alice', 'POST', '/orgs/acme/members', { user_id: ids.erin, role: 'admin' }))).toEqual({
      status: 409,
      code: 'conflict',
    });
    expect(await membership(ids.acme!, ids.erin!)).toMatchObject({ role: 'operator' });

    const byId = await call('root', 'POST', '/orgs/initech/members', { user_id: ids.erin });
    expect(byId.status).toBe(201);
    expect(await byId.json()).toMatchObject({ role: 'viewer', source: 'manual' });
  });

  it.each([
    ['an unknown user', { username: 'nobody', role: 'viewer' }],
    ['a deactivated user', { username: 'frank', role: 'viewer' }],
    ['an unknown role', { username: 'bob', role: 'owner' }],
    ['both user_id and username', { username: 'bob', user_id: '00000000-0000-4000-8000-000000000000' }],
    ['neither user_id nor username', { role: 'viewer' }],
    ['an unknown field', { username: 'bob', role: 'viewer', source: 'idp' }],
  ])('refuse adding %s with 422 validation_failed', async (_, body) => {
    expect(await problem(await call('alice', 'POST', '/orgs/acme/members', body))).toEqual({ status: 422, code: 'validation_failed' });
    expect(await membership(ids.acme!, ids.bob!)).toBeUndefined();
  });

  it('change role, with old and new values audited', async () => {
    const response = await call('alice', 'PATCH', `/orgs/acme/members/${ids.carol}`, { role: 'auditor' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ user_id: ids.carol, role: 'auditor', source: 'manual' });
    const [entry] = await audits('org_member.role_changed', ids.carol!);
    expect(entry).toMatchObject({ org_id: ids.acme, actor_sub: 'sub-alice' });
    expect(entry.details_json).toMatchObject({ old_role: 'viewer', new_role: 'auditor', old_source: 'manual', new_source: 'manual' });
    expect(await problem(await call('alice', 'PATCH', `/orgs/acme/members/${ids.carol}`, { role: 'root' }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
    expect(await problem(await call('alice', 'PATCH', `/orgs/acme/members/${ids.bob}`, { role: 'viewer' }))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await problem(await call('alice', 'PATCH', '/orgs/acme/members/not-a-uuid', { role: 'viewer' }))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
  });

  it('turn an idp membership into a manual one when edited by hand', async () => {
    const response = await call('alice', 'PATCH', `/orgs/acme/members/${ids.dave}`, { role: 'approver' });
    expect(await response.json()).toMatchObject({ role: 'approver', source: 'manual' });
    expect(await membership(ids.acme!, ids.dave!)).toMatchObject({ role: 'approver', source: 'manual' });
    const [entry] = await audits('org_member.role_changed', ids.dave!);
    expect(entry.details_json).toMatchObject({ old_role: 'operator', new_role: 'approver', old_source: 'idp', new_source: 'manual' });
  });

  it('keep the last admin against an organization admin (422 last_org_admin), not against a platform admin', async () => {
    expect(await problem(await call('alice', 'PATCH', `/orgs/acme/members/${ids.alice}`, { role: 'operator' }))).toEqual({
      status: 422,
      code: 'validation_failed',
      rule: 'last_org_admin',
    });
    expect(await problem(await call('alice', 'DELETE', `/orgs/acme/members/${ids.alice}`))).toEqual({
      status: 422,
      code: 'validation_failed',
      rule: 'last_org_admin',
    });
    expect(await membership(ids.acme!, ids.alice!)).toMatchObject({ role: 'admin' });

    // A deactivated admin is no admin to leave the organization to; removing one is no loss of the last.
    await knex()('org_memberships').insert({ org_id: ids.acme, user_id: ids.frank, role: 'admin' });
    expect(await problem(await call('alice', 'PATCH', `/orgs/acme/members/${ids.alice}`, { role: 'operator' }))).toEqual({
      status: 422,
      code: 'validation_failed',
      rule: 'last_org_admin',
    });
    expect((await call('alice', 'DELETE', `/orgs/acme/members/${ids.frank}`)).status).toBe(204);
    expect(await membership(ids.acme!, ids.alice!)).toMatchObject({ role: 'admin' });

    // With a second admin, an organization admin may step down.
    expect((await call('alice', 'PATCH', `/orgs/acme/members/${ids.erin}`, { role: 'admin' })).status).toBe(200);
    expect((await call('alice', 'PATCH', `/orgs/acme/members/${ids.alice}`, { role: 'operator' })).status).toBe(200);
    expect(await membership(ids.acme!, ids.alice!)).toMatchObject({ role: 'operator' });

    // A platform admin may demote and remove the last one.
    expect((await call('root', 'PATCH', `/orgs/acme/members/${ids.erin}`, { role: 'viewer' })).status).toBe(200);
    expect(await knex()('org_memberships').where({ org_id: ids.acme, role: 'admin' }).select()).toEqual([]);
    await knex()('org_memberships').where({ org_id: ids.acme, user_id: ids.alice }).update({ role: 'admin' });
  });

  it('let exactly one of two admins demoting each other at once succeed', async () => {
    const gina = await seedUser(knex(), { sub: 'sub-gina', username: 'gina', email: 'gina@globex.test' }, [
      { orgSlug: 'globex', role: 'admin' },
    ]);
    const asGina = await bearer('sub-gina', 'gina', 'gina@globex.test');
    const results = await Promise.all([
      call('bob', 'PATCH', `/orgs/globex/members/${gina}`, { role: 'viewer' }),
      call(asGina, 'PATCH', `/orgs/globex/members/${ids.bob}`, { role: 'viewer' }),
    ]);
    // The loser is refused either by the middleware (already demoted when its request is authorized: 403)
    // or by the rule (demoted while its request waited for the lock: 422); never both succeed.
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([403, 422]).toContain(statuses[1]);
    expect(await knex()('org_memberships').where({ org_id: ids.globex, role: 'admin' }).select()).toHaveLength(1);
    await knex()('org_memberships').where({ org_id: ids.globex, user_id: ids.bob }).update({ role: 'admin' });
    await knex()('org_memberships').where({ org_id: ids.globex, user_id: gina }).delete();
  });

  it('are removed (204), audited; an unknown member is 404', async () => {
    expect((await call('alice', 'DELETE', `/orgs/acme/members/${ids.erin}`)).status).toBe(204);
    expect(await membership(ids.acme!, ids.erin!)).toBeUndefined();
    const [entry] = await audits('org_member.removed', ids.erin!);
    expect(entry).toMatchObject({ org_id: ids.acme, actor_sub: 'sub-alice', action: 'org_member:manage' });
    expect(entry.details_json).toMatchObject({ user: 'erin', role: 'viewer' });
    expect(await problem(await call('alice', 'DELETE', `/orgs/acme/members/${ids.erin}`))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });

    const lone = await seedOrg(knex(), 'lone');
    await knex()('org_memberships').insert({ org_id: lone, user_id: ids.erin, role: 'admin' });
    expect((await call('root', 'DELETE', `/orgs/lone/members/${ids.erin}`)).status).toBe(204);
  });
});

describe('tenancy isolation', () => {
  const leaks = (text: string) => ['alice', 'carol', 'dave', '@acme.test', ids.carol!, ids.dave!].filter((s) => text.includes(s));

  it('refuses an admin of another organization every members route of acme (403), with no data and no change', async () => {
    const snapshot = await knex()('org_memberships').where({ org_id: ids.acme }).orderBy('user_id').select('user_id', 'role', 'source');
    const attempts: [string, string, unknown?][] = [
      ['GET', '/orgs/acme'],
      ['GET', '/orgs/acme/members'],
      ['GET', `/orgs/${ids.acme}/members`],
      ['GET', '/orgs/acme/addable-users'],
      ['POST', '/orgs/acme/members', { username: 'bob', role: 'admin' }],
      ['PATCH', `/orgs/acme/members/${ids.carol}`, { role: 'admin' }],
      ['DELETE', `/orgs/acme/members/${ids.dave}`],
    ];
    for (const [method, path, body] of attempts) {
      const response = await call('bob', method, path, body);
      const text = await response.text();
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(JSON.parse(text).code).toBe('forbidden');
      expect(leaks(text), `${method} ${path}`).toEqual([]);
    }
    // Naming its own organization in X-Org-Id changes nothing.
    const spoofed = await call('bob', 'GET', '/orgs/acme/members', undefined, { 'x-org-id': 'globex' });
    expect(spoofed.status).toBe(400);
    expect(leaks(await spoofed.text())).toEqual([]);

    expect(await knex()('org_memberships').where({ org_id: ids.acme }).orderBy('user_id').select('user_id', 'role', 'source')).toEqual(
      snapshot,
    );
    const denied = await knex()('audit_logs').where({ event_type: 'authz.denied', actor_sub: 'sub-bob' }).select('resource_id');
    expect(denied.map((d) => d.resource_id)).toEqual(
      expect.arrayContaining([
        'GET /orgs/{org_ref}/members',
        'POST /orgs/{org_ref}/members',
        'PATCH /orgs/{org_ref}/members/{user_id}',
        'DELETE /orgs/{org_ref}/members/{user_id}',
      ]),
    );
    const writes = await knex()('audit_logs')
      .where('event_type', 'like', 'org_member.%')
      .andWhere({ actor_sub: 'sub-bob', org_id: ids.acme })
      .select();
    expect(writes).toEqual([]);
  });

  it('refuses member management to a member who is not an organization admin', async () => {
    expect((await call('carol', 'POST', '/orgs/acme/members', { username: 'bob' })).status).toBe(403);
    expect((await call('carol', 'DELETE', `/orgs/acme/members/${ids.dave}`)).status).toBe(403);
    expect(await membership(ids.acme!, ids.bob!)).toBeUndefined();
  });
});
