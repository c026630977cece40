import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { IdpMappingsRepo } from '../src/daemon/tenancy/idp-mappings-repo.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { MappingIndex } from '../src/daemon/tenancy/mapping-index.js';
import type { CandidateMapping } from '../src/shared/tenancy/sync-plan.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

let idp: DevIdp;
let daemon: TestDaemon;
let knex: Knex;
const orgIds: Record<string, string> = {};
let root: Record<string, string>;
let ada: Record<string, string>; // admin of acme
let gus: Record<string, string>; // admin of globex
let bob: Record<string, string>; // viewer of acme

interface Mapping {
  id: string;
  org_id: string;
  claim: string;
  value: string;
  role: string;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

beforeAll(async () => {
  idp = await startDevIdp();
  // No auto-join: these tests place every user themselves.
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
  knex = daemon.services.db.knex;
  for (const slug of ['acme', 'globex', 'initech', 'hooli']) orgIds[slug] = await seedOrg(knex, slug);
  await seedUser(knex, { sub: 'sub-ada', username: 'ada' }, [{ orgSlug: 'acme', role: 'admin' }]);
  await seedUser(knex, { sub: 'sub-gus', username: 'gus' }, [{ orgSlug: 'globex', role: 'admin' }]);
  await seedUser(knex, { sub: 'sub-bob', username: 'bob' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  const bearer = async (sub: string, username: string, realmRoles: string[]) => ({
    authorization: `Bearer ${await idp.mintAccessToken({ sub, username, realmRoles })}`,
    'content-type': 'application/json',
  });
  root = await bearer('sub-root', 'root', ['admin']);
  ada = await bearer('sub-ada', 'ada', []);
  gus = await bearer('sub-gus', 'gus', []);
  bob = await bearer('sub-bob', 'bob', []);
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

const base = (org: string) => `/orgs/${org}/idp-mappings`;
const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`${daemon.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const create = (org: string, headers: Record<string, string>, body: unknown, orgHeader: string | null = org) =>
  send('POST', base(org), orgHeader === null ? headers : { ...headers, 'x-org-id': orgHeader }, body);
const json = async <T = Record<string, unknown>>(response: Response) => (await response.json()) as T;
const mappingCount = async () => Number((await knex('org_idp_mappings').count<{ n: string }[]>('* as n'))[0]!.n);

async function created(org: string, headers: Record<string, string>, body: Record<string, unknown>): Promise<Mapping> {
  const response = await create(org, headers, body);
  expect(response.status).toBe(201);
  return json<Mapping>(response);
}

describe('IdP mappings', () => {
  it('create a mapping (201), audited in its organization', async () => {
    const response = await create('acme', ada, { claim: 'groups', value: '/Engineering', role: 'operator' });
    expect(response.status).toBe(201);
    const mapping = await json<Mapping>(response);
    expect(mapping).toMatchObject({ org_id: orgIds.acme, claim: 'groups', value: '/Engineering', role: 'operator', is_active: true });
    expect(Object.keys(mapping).sort()).toEqual(['claim', 'created_at', 'id', 'is_active', 'org_id', 'role', 'updated_at', 'value']);
    expect(await knex('org_idp_mappings').where({ id: mapping.id }).first()).toMatchObject({
      org_id: orgIds.acme,
      value: '/Engineering',
      role: 'operator',
    });

    const entry = await knex('audit_logs').where({ event_type: 'idp_mapping.created', resource_id: mapping.id }).first();
    expect(entry).toMatchObject({
      org_id: orgIds.acme,
      actor_sub: 'sub-ada',
      action: 'org_idp_mapping:manage',
      resource_type: 'idp_mapping',
      outcome: 'success',
    });
    expect(entry.details_json).toMatchObject({ claim: 'groups', value: '/Engineering', role: 'operator', is_active: true });
  });

  it('accept the organization id as well as its slug in X-Org-Id, and is_active false', async () => {
    const mapping = await created(
      'acme',
      { ...ada, 'x-org-id': orgIds.acme! },
      { claim: 'groups', value: 'Dormant', role: 'viewer', is_active: false },
    );
    expect(mapping.is_active).toBe(false);
  });

  it("list the organization's mappings, filtered by activity", async () => {
    const all = await json<{ items: Mapping[] }>(await send('GET', base('acme'), ada));
    expect(all.items.map((m) => m.value)).toEqual(expect.arrayContaining(['/Engineering', 'Dormant']));
    expect(all.items.every((m) => m.org_id === orgIds.acme)).toBe(true);
    const inactive = await json<{ items: Mapping[] }>(await send('GET', `${base('acme')}?active=false`, ada));
    expect(inactive.items.map((m) => m.value)).toEqual(['Dormant']);
    const active = await json<{ items: Mapping[] }>(await send('GET', `${base('acme')}?active=true`, ada));
    expect(active.items.map((m) => m.value)).not.toContain('Dormant');
    const bad = await send('GET', `${base('acme')}?active=maybe`, ada);
    expect(bad.status).toBe(422);
    expect((await json(bad)).code).toBe('validation_failed');
  });

  it('refuse a duplicate (claim, value) in one organization with 409, but keep values exact', async () => {
    const before = await mappingCount();
    const duplicate = await create('acme', ada, { claim: 'groups', value: '/Engineering', role: 'admin' });
    expect(duplicate.status).toBe(409);
    expect((await json(duplicate)).code).toBe('conflict');
    expect(await mappingCount()).toBe(before);
    expect((await knex('audit_logs').where({ event_type: 'idp_mapping.created' }).whereRaw("details_json->>'role' = 'admin'")).length).toBe(
      0,
    );

    // Full path and bare name, or another case, are other values; another organization may map the same one.
    expect((await create('acme', ada, { claim: 'groups', value: 'Engineering', role: 'viewer' })).status).toBe(201);
    expect((await create('acme', ada, { claim: 'groups', value: '/engineering', role: 'viewer' })).status).toBe(201);
    expect((await create('acme', ada, { claim: 'groups', value: ' /Engineering', role: 'viewer' })).status).toBe(201);
    expect((await create('globex', gus, { claim: 'groups', value: '/Engineering', role: 'viewer' })).status).toBe(201);
  });

  it.each([
    ['a claim other than the configured one', { claim: 'roles', value: 'x', role: 'viewer' }, 'claim'],
    ['an unknown role', { claim: 'groups', value: 'x', role: 'superuser' }, 'role'],
    ['an empty value', { claim: 'groups', value: '', role: 'viewer' }, 'value'],
    ['a value over 1024 characters', { claim: 'groups', value: 'v'.repeat(1025), role: 'viewer' }, 'value'],
    ['a non-boolean is_active', { claim: 'groups', value: 'x', role: 'viewer', is_active: 'yes' }, 'is_active'],
    ['an unknown member', { claim: 'groups', value: 'x', role: 'viewer', org_id: 'acme' }, ''],
    ['a missing role', { claim: 'groups', value: 'x' }, 'role'],
  ])('refuse %s with 422 validation_failed, writing nothing', async (_what, body, path) => {
    const before = await mappingCount();
    const response = await create('acme', ada, body);
    expect(response.status).toBe(422);
    const problem = await json<{ code: string; errors: { path: string }[] }>(response);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors.map((e) => e.path)).toContain(path);
    expect(await mappingCount()).toBe(before);
  });

  it('accept a value of exactly 1024 characters', async () => {
    expect((await create('acme', ada, { claim: 'groups', value: 'L'.repeat(1024), role: 'viewer' })).status).toBe(201);
  });

  it('require X-Org-Id on creation (400 org_header_required) and refuse another organization there (400 org_header_mismatch)', async () => {
    const before = await mappingCount();
    const missing = await create('acme', ada, { claim: 'groups', value: 'NoHeader', role: 'viewer' }, null);
    expect(missing.status).toBe(400);
    expect((await json(missing)).code).toBe('org_header_required');

    const mismatch = await create('acme', ada, { claim: 'groups', value: 'NoHeader', role: 'viewer' }, 'globex');
    expect(mismatch.status).toBe(400);
    expect((await json(mismatch)).code).toBe('org_header_mismatch');
    const unknown = await create('acme', root, { claim: 'groups', value: 'NoHeader', role: 'viewer' }, 'no-such-org');
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).code).toBe('org_header_mismatch');
    expect(await mappingCount()).toBe(before);
  });

  it('change role and is_active (200), audited with old and new values', async () => {
    const mapping = await created('acme', ada, { claim: 'groups', value: 'Patchable', role: 'viewer' });
    const response = await send('PATCH', `${base('acme')}/${mapping.id}`, ada, { role: 'approver', is_active: false });
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ id: mapping.id, claim: 'groups', value: 'Patchable', role: 'approver', is_active: false });
    expect(await knex('org_idp_mappings').where({ id: mapping.id }).first()).toMatchObject({ role: 'approver', is_active: false });

    const entry = await knex('audit_logs').where({ event_type: 'idp_mapping.updated', resource_id: mapping.id }).first();
    expect(entry).toMatchObject({ org_id: orgIds.acme, actor_sub: 'sub-ada', action: 'org_idp_mapping:manage' });
    expect(entry.details_json).toMatchObject({ old: { role: 'viewer', is_active: true }, new: { role: 'approver', is_active: false } });

    const reactivated = await send('PATCH', `${base('acme')}/${mapping.id}`, ada, { is_active: true });
    expect(await json(reactivated)).toMatchObject({ role: 'approver', is_active: true });
    expect((await knex('audit_logs').where({ event_type: 'idp_mapping.updated', resource_id: mapping.id })).length).toBe(2);
  });

  it.each([
    ['claim, even unchanged', { claim: 'groups' }, ['claim']],
    ['value', { value: 'Other' }, ['value']],
    ['both, beside a legal change', { claim: 'groups', value: 'Immutable', role: 'admin' }, ['claim', 'value']],
  ])('refuse a PATCH naming %s with 422 validation_failed', async (_what, body, paths) => {
    const mapping = (await knex('org_idp_mappings').where({ org_id: orgIds.acme, value: '/Engineering' }).first()) as Mapping;
    const response = await send('PATCH', `${base('acme')}/${mapping.id}`, ada, body);
    expect(response.status).toBe(422);
    const problem = await json<{ code: string; errors: { path: string }[] }>(response);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors.map((e) => e.path).sort()).toEqual(paths);
    expect(await knex('org_idp_mappings').where({ id: mapping.id }).first()).toMatchObject({ role: 'operator', value: '/Engineering' });
  });

  it('refuse a PATCH with nothing to change, or an unknown role', async () => {
    const mapping = (await knex('org_idp_mappings').where({ org_id: orgIds.acme, value: '/Engineering' }).first()) as Mapping;
    for (const body of [{}, { role: 'root' }, { is_active: 'no' }, { name: 'x' }]) {
      const response = await send('PATCH', `${base('acme')}/${mapping.id}`, ada, body);
      expect(response.status).toBe(422);
      expect((await json(response)).code).toBe('validation_failed');
    }
  });

  it('delete a mapping (204), audited; deleting it again is 404', async () => {
    const mapping = await created('acme', ada, { claim: 'groups', value: 'Deletable', role: 'auditor' });
    const response = await send('DELETE', `${base('acme')}/${mapping.id}`, ada);
    expect(response.status).toBe(204);
    expect(await knex('org_idp_mappings').where({ id: mapping.id }).first()).toBeUndefined();
    const entry = await knex('audit_logs').where({ event_type: 'idp_mapping.deleted', resource_id: mapping.id }).first();
    expect(entry).toMatchObject({ org_id: orgIds.acme, actor_sub: 'sub-ada', action: 'org_idp_mapping:manage' });
    expect(entry.details_json).toMatchObject({ claim: 'groups', value: 'Deletable', role: 'auditor' });

    const again = await send('DELETE', `${base('acme')}/${mapping.id}`, ada);
    expect(again.status).toBe(404);
    expect((await json(again)).code).toBe('resource_not_found');
  });

  it("answer 404 for another organization's mapping through this organization's path, changing nothing", async () => {
    const foreign = (await knex('org_idp_mappings').where({ org_id: orgIds.globex, value: '/Engineering' }).first()) as Mapping;
    const events = (await knex('audit_logs').whereIn('event_type', ['idp_mapping.updated', 'idp_mapping.deleted'])).length;
    for (const headers of [ada, root]) {
      const patch = await send('PATCH', `${base('acme')}/${foreign.id}`, headers, { role: 'admin' });
      expect(patch.status).toBe(404);
      expect((await json(patch)).code).toBe('resource_not_found');
      const del = await send('DELETE', `${base('acme')}/${foreign.id}`, headers);
      expect(del.status).toBe(404);
      expect((await json(del)).code).toBe('resource_not_found');
    }
    const unknown = await send('PATCH', `${base('acme')}/00000000-0000-4000-8000-000000000000`, ada, { role: 'admin' });
    expect(unknown.status).toBe(404);
    const malformed = await send('DELETE', `${base('acme')}/not-a-uuid`, ada);
    expect(malformed.status).toBe(404);
    expect(await knex('org_idp_mappings').where({ id: foreign.id }).first()).toMatchObject({ role: 'viewer', org_id: orgIds.globex });
    expect((await knex('audit_logs').whereIn('event_type', ['idp_mapping.updated', 'idp_mapping.deleted'])).length).toBe(events);
  });

  it("keep an organization admin out of another organization's mappings (403, never data)", async () => {
    const foreign = (await knex('org_idp_mappings').where({ org_id: orgIds.globex, value: '/Engineering' }).first()) as Mapping;
    const before = await mappingCount();
    const attempts = [
      send('GET', base('globex'), ada),
      send('GET', `${base('globex')}?preview_user=gus&groups=/Engineering`, ada),
      create('globex', ada, { claim: 'groups', value: 'Intruder', role: 'admin' }),
      send('PATCH', `${base('globex')}/${foreign.id}`, ada, { role: 'admin' }),
      send('DELETE', `${base('globex')}/${foreign.id}`, ada),
      // A plain member of acme is no administrator of it either.
      send('GET', base('acme'), bob),
      create('acme', bob, { claim: 'groups', value: 'Intruder', role: 'admin' }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      const body = await json(response);
      expect(body.code).toBe('forbidden');
      expect(body).not.toHaveProperty('items');
      expect(JSON.stringify(body)).not.toContain(foreign.id);
    }
    expect(await mappingCount()).toBe(before);
    expect(await knex('org_idp_mappings').where({ id: foreign.id }).first()).toMatchObject({ role: 'viewer' });
  });

  it("let a platform admin manage any organization's mappings", async () => {
    const mapping = await created('initech', root, { claim: 'groups', value: 'RootMade', role: 'viewer' });
    expect(mapping.org_id).toBe(orgIds.initech);
    expect((await send('DELETE', `${base('initech')}/${mapping.id}`, root)).status).toBe(204);
  });
});

describe('the sync preview', () => {
  interface Change {
    kind: string;
    org: { id: string; slug: string };
    role: string;
    from?: string;
    mapping: { id: string; claim: string; value: string; role: string } | null;
    source?: string;
    why?: string;
  }
  interface Preview {
    user: { id: string; username: string };
    claim: string;
    authoritative: boolean;
    changes: Change[];
    hidden_changes: number;
  }
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // tina: acme idp viewer (to be upgraded), globex manual viewer (never touched), hooli idp auditor (no longer justified).
    const tina = await seedUser(knex, { sub: 'sub-tina', username: 'tina' }, [{ orgSlug: 'globex', role: 'viewer' }]);
    await knex('org_memberships').insert([
      { user_id: tina, org_id: orgIds.acme, role: 'viewer', source: 'idp' },
      { user_id: tina, org_id: orgIds.hooli, role: 'auditor', source: 'idp' },
    ]);
    ids.acmeNet = (await created('acme', root, { claim: 'groups', value: '/Net', role: 'operator' })).id;
    ids.acmeNetWeak = (await created('acme', root, { claim: 'groups', value: 'Net-Readers', role: 'viewer' })).id;
    ids.globexOps = (await created('globex', root, { claim: 'groups', value: 'Ops', role: 'admin' })).id;
    ids.initechNet = (await created('initech', root, { claim: 'groups', value: '/Net', role: 'viewer' })).id;
    ids.hooliGone = (await created('hooli', root, { claim: 'groups', value: '/Gone', role: 'auditor' })).id;
    ids.initechInactive = (await created('initech', root, { claim: 'groups', value: 'Ops', role: 'admin', is_active: false })).id;
  });

  const preview = (org: string, headers: Record<string, string>, query: string) => send('GET', `${base(org)}?${query}`, headers);
  const GROUPS = 'preview_user=tina&groups=/Net&groups=Net-Readers&groups=Ops&groups=net';

  it('show a platform admin every organization: add, upgrade, untouched manual, remove (authoritative)', async () => {
    const response = await preview('acme', root, GROUPS);
    expect(response.status).toBe(200);
    const body = await json<Preview>(response);
    expect(body).toMatchObject({ user: { username: 'tina' }, claim: 'groups', authoritative: true, hidden_changes: 0 });
    const bySlug = Object.fromEntries(body.changes.map((c) => [c.org.slug, c]));
    expect(Object.keys(bySlug).sort()).toEqual(['acme', 'globex', 'hooli', 'initech']);
    expect(bySlug.acme).toMatchObject({
      kind: 'upgrade',
      from: 'viewer',
      role: 'operator',
      org: { id: orgIds.acme },
      mapping: { id: ids.acmeNet, claim: 'groups', value: '/Net', role: 'operator' },
    });
    expect(bySlug.globex).toMatchObject({ kind: 'untouched', role: 'viewer', source: 'manual', mapping: { id: ids.globexOps } });
    expect(bySlug.globex!.why).toEqual(expect.any(String));
    expect(bySlug.initech).toMatchObject({ kind: 'add', role: 'viewer', mapping: { id: ids.initechNet, value: '/Net' } });
    expect(bySlug.hooli).toMatchObject({ kind: 'remove', role: 'auditor', mapping: null });
    // Nothing is written by a preview.
    expect(
      await knex('org_memberships as m')
        .join('users as u', 'u.id', 'm.user_id')
        .where('u.username', 'tina')
        .select('m.org_id', 'm.role', 'm.source'),
    ).toHaveLength(3);
  });

  it('show an organization admin only its own organizations, the rest as a count', async () => {
    const response = await preview('acme', ada, GROUPS);
    expect(response.status).toBe(200);
    const body = await json<Preview>(response);
    expect(body.changes).toHaveLength(1);
    expect(body.changes[0]).toMatchObject({ kind: 'upgrade', org: { slug: 'acme' }, role: 'operator' });
    expect(body.hidden_changes).toBe(2); // the add in initech and the removal in hooli; the untouched globex row is not counted
    const text = JSON.stringify(body);
    for (const slug of ['globex', 'initech', 'hooli']) {
      expect(text).not.toContain(slug);
      expect(text).not.toContain(orgIds[slug]);
    }
    for (const id of [ids.globexOps, ids.initechNet, ids.hooliGone]) expect(text).not.toContain(id);
  });

  it('match values exactly and ignore inactive mappings', async () => {
    const body = await json<Preview>(await preview('acme', root, 'preview_user=tina&groups=/net&groups=NET-READERS&groups=ops'));
    const kinds = Object.fromEntries(body.changes.map((c) => [c.org.slug, c.kind]));
    // No value matches: in authoritative mode both idp rows go, the manual row stays.
    expect(kinds).toEqual({ acme: 'remove', globex: 'untouched', hooli: 'remove' });
    const inactive = await json<Preview>(await preview('acme', root, 'preview_user=tina&groups=Ops'));
    expect(inactive.changes.find((c) => c.org.slug === 'initech')).toBeUndefined();
  });

  it('take one value, or none', async () => {
    const one = await json<Preview>(await preview('acme', root, 'preview_user=tina&groups=Net-Readers'));
    expect(one.changes.find((c) => c.org.slug === 'acme')).toMatchObject({
      kind: 'untouched',
      source: 'idp',
      mapping: { id: ids.acmeNetWeak },
    });
    const none = await json<Preview>(await preview('acme', root, 'preview_user=tina'));
    expect(none.changes.map((c) => c.kind).sort()).toEqual(['remove', 'remove', 'untouched']);
  });

  it('answer 404 for an unknown user and 422 for a malformed query', async () => {
    const unknown = await preview('acme', ada, 'preview_user=nobody&groups=/Net');
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).code).toBe('resource_not_found');
    for (const query of ['preview_user=tina&active=true', 'preview_user=tina&groups=', 'preview_user=&groups=/Net', 'groups=/Net']) {
      const response = await preview('acme', ada, query);
      expect(response.status).toBe(422);
      expect((await json(response)).code).toBe('validation_failed');
    }
  });

  it('find active mappings for 200 values in one call', async () => {
    const repo = new IdpMappingsRepo(knex);
    const values = Array.from({ length: 200 }, (_, i) => `bulk-${i}`).concat(['/Net', 'Ops']);
    const matched = await repo.activeMatching('groups', values);
    expect(matched.map((m) => m.id).sort()).toEqual([ids.acmeNet, ids.globexOps, ids.initechNet].sort());
    expect(await repo.activeMatching('roles', values)).toEqual([]);
    expect(await repo.activeMatching('groups', [])).toEqual([]);
  });

  it('answer from the in-process index exactly what the query answers, asking the database until the index has loaded', async () => {
    const repo = new IdpMappingsRepo(knex);
    const byId = (mappings: CandidateMapping[]) => [...mappings].sort((a, b) => a.id.localeCompare(b.id));
    const values = Array.from({ length: 200 }, (_, i) => `bulk-${i}`).concat(['/Net', 'Ops', '/Net', 'Net-Readers', 'net']);
    const query = byId(await repo.activeMatching('groups', values));
    expect(query.map((m) => m.id).sort()).toEqual([ids.acmeNet, ids.acmeNetWeak, ids.globexOps, ids.initechNet].sort());
    expect(byId(await daemon.services.mappingIndex.match('groups', values))).toEqual(query);
    expect(await daemon.services.mappingIndex.match('roles', values)).toEqual([]);

    const index = new MappingIndex(repo, createLogger('silent'));
    const late = await created('hooli', root, { claim: 'groups', value: 'Late', role: 'viewer' });
    expect(index.loaded).toBe(false);
    expect((await index.match('groups', ['Late'])).map((m) => m.id)).toEqual([late.id]);
    await index.refresh();
    expect(index.loaded).toBe(true);
    expect(byId(await index.match('groups', values))).toEqual(query);
    // A snapshot from now on: a row written behind its back is seen only after the next reload.
    await knex('org_idp_mappings').where({ id: late.id }).update({ is_active: false });
    expect((await index.match('groups', ['Late'])).map((m) => m.id)).toEqual([late.id]);
    await index.refresh();
    expect(await index.match('groups', ['Late'])).toEqual([]);
  });
});
