import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

let idp: DevIdp;
let daemon: TestDaemon;
let admin: Record<string, string>;
let viewer: Record<string, string>;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer });
  const knex = daemon.services.db.knex;
  await seedOrg(knex, 'acme');
  await seedUser(knex, { sub: 'sub-vera', username: 'vera' }, [{ orgSlug: 'default', role: 'viewer' }]);
  admin = {
    authorization: `Bearer ${await idp.mintAccessToken({ sub: 'sub-root', username: 'root', realmRoles: ['admin'] })}`,
    'content-type': 'application/json',
  };
  viewer = { authorization: `Bearer ${await idp.mintAccessToken({ sub: 'sub-vera', username: 'vera', realmRoles: ['viewer'] })}` };
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

const put = (path: string, body: unknown) => fetch(`${daemon.url}${path}`, { method: 'PUT', headers: admin, body: JSON.stringify(body) });
const del = (path: string) => fetch(`${daemon.url}${path}`, { method: 'DELETE', headers: admin });
const code = async (response: Response) => ((await response.json()) as { code: string }).code;

describe('permission overrides through the API', () => {
  it('apply an action override at once, audit it with old and new policy, and clear it', async () => {
    expect((await fetch(`${daemon.url}/runs`, { headers: viewer })).status).toBe(200);

    const set = await put('/settings/permissions/actions/override', { action: 'run:view', policy: 'admin' });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ action: 'run:view', previous: null, policy: 'admin' });
    expect((await fetch(`${daemon.url}/runs`, { headers: viewer })).status).toBe(403);

    const entry = await daemon.services.db
      .knex('audit_logs')
      .where({ event_type: 'permission.override_set', resource_id: 'run:view' })
      .first();
    expect(entry).toMatchObject({ actor_sub: 'sub-root', actor_username: 'root', action: 'permission:manage' });
    expect(entry.details_json).toMatchObject({ layer: 'action', old_policy: null, new_policy: 'admin' });

    const matrix = (await (await fetch(`${daemon.url}/settings/permissions/actions`, { headers: admin })).json()) as {
      actions: { action: string; override: string | null; effective_policy: string }[];
    };
    expect(matrix.actions.find((a) => a.action === 'run:view')).toMatchObject({ override: 'admin', effective_policy: 'admin' });

    const cleared = await del('/settings/permissions/actions/override?action=run:view');
    expect(await cleared.json()).toMatchObject({ previous: 'admin', policy: null });
    expect((await fetch(`${daemon.url}/runs`, { headers: viewer })).status).toBe(200);
    const clearedEntry = await daemon.services.db
      .knex('audit_logs')
      .where({ event_type: 'permission.override_cleared', resource_id: 'run:view' })
      .first();
    expect(clearedEntry.details_json).toMatchObject({ old_policy: 'admin', new_policy: null });
  });

  it('let a route override win over an action override', async () => {
    await put('/settings/permissions/actions/override', { action: 'run:view', policy: 'admin' });
    await put('/settings/permissions/override', { method: 'GET', path: '/runs', policy: 'viewer' });
    expect((await fetch(`${daemon.url}/runs`, { headers: viewer })).status).toBe(200);
    expect((await fetch(`${daemon.url}/runs/r1`, { headers: viewer })).status).toBe(403);
    const routes = (await (await fetch(`${daemon.url}/settings/permissions`, { headers: admin })).json()) as {
      routes: { method: string; path: string; source: string; effective_policy: string }[];
    };
    expect(routes.routes.find((r) => r.path === '/runs' && r.method === 'GET')).toMatchObject({
      source: 'route_override',
      effective_policy: 'viewer',
    });
    expect(routes.routes.find((r) => r.path === '/runs/{run_id}' && r.method === 'GET')).toMatchObject({
      source: 'action_override',
      effective_policy: 'admin',
    });
    await del('/settings/permissions/override?method=GET&path=/runs');
    await del('/settings/permissions/actions/override?action=run:view');
  });

  it.each([
    ['structural_policy', '/settings/permissions/actions/override', { action: 'system:health', policy: 'admin' }],
    ['structural_policy', '/settings/permissions/override', { method: 'GET', path: '/runs', policy: 'public' }],
    ['permission_manage_pinned', '/settings/permissions/actions/override', { action: 'permission:manage', policy: 'operator' }],
    [
      'permission_manage_pinned',
      '/settings/permissions/override',
      { method: 'PUT', path: '/settings/permissions/override', policy: 'disabled' },
    ],
    ['org_policy_needs_org_ref', '/settings/permissions/actions/override', { action: 'run:view', policy: 'org_member' }],
    ['auth_me_never_disabled', '/settings/permissions/actions/override', { action: 'auth:me', policy: 'disabled' }],
    ['auth_me_never_disabled', '/settings/permissions/override', { method: 'GET', path: '/auth/capabilities', policy: 'disabled' }],
    ['unknown_action', '/settings/permissions/actions/override', { action: 'run:fly', policy: 'admin' }],
    ['unknown_route', '/settings/permissions/override', { method: 'GET', path: '/runs/42', policy: 'admin' }],
    ['unknown_policy', '/settings/permissions/actions/override', { action: 'run:view', policy: 'root' }],
  ])('refuse an override breaking %s with 422 naming the rule, writing nothing', async (rule, path, body) => {
    const before = await daemon.services.db.knex('permission_action_overrides').count<{ n: string }[]>('* as n');
    const response = await put(path, body);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: 'override_rule_violation', rule });
    const after = await daemon.services.db.knex('permission_action_overrides').count<{ n: string }[]>('* as n');
    expect(Number(after[0]!.n)).toBe(Number(before[0]!.n));
  });

  it('refuse a malformed body with 422 validation_failed', async () => {
    const response = await put('/settings/permissions/actions/override', { action: 'run:view' });
    expect(response.status).toBe(422);
    expect(await code(response)).toBe('validation_failed');
  });

  it('disable a route for everyone, before authentication, with an authz.denied entry naming the address', async () => {
    await put('/settings/permissions/override', { method: 'GET', path: '/runs/filter-options', policy: 'disabled' });
    const asAdmin = await fetch(`${daemon.url}/runs/filter-options`, { headers: admin });
    expect(asAdmin.status).toBe(403);
    expect(await code(asAdmin)).toBe('route_disabled');
    const anonymous = await fetch(`${daemon.url}/runs/filter-options`);
    expect(anonymous.status).toBe(403);
    const entries = await daemon.services.db
      .knex('audit_logs')
      .where({ event_type: 'authz.denied', resource_id: 'GET /runs/filter-options' })
      .select();
    expect(entries.length).toBeGreaterThanOrEqual(2);
    expect(entries.every((e) => e.actor_sub === null && e.client_ip === '127.0.0.1')).toBe(true);
    expect(entries[0].details_json).toMatchObject({ policy: 'disabled' });

    const doc = (await (await fetch(`${daemon.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { 'x-policy': string; security: unknown[] }>>;
    };
    expect(doc.paths['/runs/filter-options']!.get!['x-policy']).toBe('disabled');
    expect(doc.paths['/runs/filter-options']!.get!.security).toEqual([{ disabled: [] }]);
    await del('/settings/permissions/override?method=GET&path=/runs/filter-options');
    expect((await fetch(`${daemon.url}/runs/filter-options`, { headers: admin })).status).toBe(200);
  });

  it('explain why a caller would be allowed or refused', async () => {
    const allowed = await fetch(`${daemon.url}/settings/permissions?explain=1&method=GET&path=/runs&username=vera`, { headers: admin });
    expect(await allowed.json()).toMatchObject({
      allowed: true,
      policy: 'viewer',
      source: 'default',
      scope: 'org',
      organization: { slug: 'default', role: 'viewer' },
    });
    const refused = await fetch(`${daemon.url}/settings/permissions?explain=1&method=POST&path=/runs&username=vera`, { headers: admin });
    expect(await refused.json()).toMatchObject({ allowed: false, policy: 'operator', required_roles: ['admin', 'operator'] });
    const foreign = await fetch(`${daemon.url}/settings/permissions?explain=1&method=GET&path=/runs&username=vera&org=acme`, {
      headers: admin,
    });
    expect(await foreign.json()).toMatchObject({ allowed: false, organization: { slug: 'acme', role: null } });
    const bad = await fetch(`${daemon.url}/settings/permissions?explain=1&method=GET&path=/nope`, { headers: admin });
    expect(bad.status).toBe(422);
  });

  it('show the caller its capabilities', async () => {
    const body = (await (await fetch(`${daemon.url}/auth/capabilities`, { headers: viewer })).json()) as {
      actions: { action: string; allowed: boolean }[];
    };
    const of = (action: string) => body.actions.find((a) => a.action === action)!.allowed;
    expect(of('run:view')).toBe(true);
    expect(of('run:trigger')).toBe(false);
    expect(of('permission:manage')).toBe(false);
    expect(body.actions).toHaveLength(109);
  });

  it('are for platform admins only', async () => {
    const response = await fetch(`${daemon.url}/settings/permissions/actions/override`, {
      method: 'PUT',
      headers: { ...viewer, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'run:view', policy: 'viewer' }),
    });
    expect(response.status).toBe(403);
  });
});

describe('an override target and the matrix query', () => {
  const delWithBody = (path: string, body: unknown) =>
    fetch(`${daemon.url}${path}`, { method: 'DELETE', headers: admin, body: JSON.stringify(body) });

  it('clear an override named in a JSON body instead of the query, the body winning over the query', async () => {
    await put('/settings/permissions/actions/override', { action: 'run:view', policy: 'admin' });
    const cleared = await delWithBody('/settings/permissions/actions/override?action=system:health', { action: 'run:view' });
    expect(cleared.status).toBe(200);
    expect(await cleared.json()).toEqual({ action: 'run:view', previous: 'admin', policy: null });
    await put('/settings/permissions/override', { method: 'GET', path: '/runs', policy: 'admin' });
    const route = await delWithBody('/settings/permissions/override', { method: 'get', path: '/runs' });
    expect(await route.json()).toEqual({ method: 'GET', path: '/runs', previous: 'admin', policy: null });
  });

  it.each([
    ['no target', '/settings/permissions/actions/override', undefined],
    ['an empty body', '/settings/permissions/actions/override', {}],
    ['an unknown query parameter', '/settings/permissions/actions/override?action=run:view&layer=action', undefined],
    ['an unknown body member', '/settings/permissions/actions/override', { action: 'run:view', layer: 'action' }],
    ['a route without its path', '/settings/permissions/override?method=GET', undefined],
    ['a body naming half the route', '/settings/permissions/override?method=GET&path=/runs', { method: 'GET' }],
  ])('refuse a DELETE with %s with 422 validation_failed', async (_, path, body) => {
    const response = body === undefined ? await del(path) : await delWithBody(path, body);
    expect(response.status).toBe(422);
    expect(await code(response)).toBe('validation_failed');
  });

  it.each([
    ['an explain parameter without explain', '?method=GET&path=/runs'],
    ['explain without a method', '?explain=1&path=/runs'],
    ['explain without a path', '?explain=true&method=GET'],
    ['explain=0', '?explain=0&method=GET&path=/runs'],
    ['an unknown parameter', '?explain=1&method=GET&path=/runs&verbose=1'],
  ])('refuse %s on the matrix with 422 validation_failed', async (_, query) => {
    const response = await fetch(`${daemon.url}/settings/permissions${query}`, { headers: admin });
    expect(response.status).toBe(422);
    expect(await code(response)).toBe('validation_failed');
  });
});

describe('the active organization', () => {
  it('is refused alike whether foreign or nonexistent', async () => {
    const foreign = await fetch(`${daemon.url}/runs`, { headers: { ...viewer, 'x-org-id': 'acme' } });
    const missing = await fetch(`${daemon.url}/runs`, { headers: { ...viewer, 'x-org-id': 'no-such-org' } });
    expect(foreign.status).toBe(403);
    expect(missing.status).toBe(403);
    const strip = (b: Record<string, unknown>) => ({ ...b, request_id: undefined });
    expect(strip((await foreign.json()) as Record<string, unknown>)).toEqual(strip((await missing.json()) as Record<string, unknown>));
  });

  it('answers 400 for a malformed or repeated X-Org-Id', async () => {
    const malformed = await fetch(`${daemon.url}/runs`, { headers: { ...viewer, 'x-org-id': 'Not An Org!' } });
    expect(malformed.status).toBe(400);
    expect(await code(malformed)).toBe('invalid_org_header');
    const repeated = await fetch(`${daemon.url}/runs`, {
      headers: [
        ['authorization', viewer.authorization!],
        ['x-org-id', 'default'],
        ['x-org-id', 'acme'],
      ],
    });
    expect(repeated.status).toBe(400);
  });

  it('strips an organization admin role on platform routes', async () => {
    await seedUser(daemon.services.db.knex, { sub: 'sub-oadmin', username: 'oadmin' }, [{ orgSlug: 'acme', role: 'admin' }]);
    const orgAdmin = { authorization: `Bearer ${await idp.mintAccessToken({ sub: 'sub-oadmin', username: 'oadmin', realmRoles: [] })}` };
    expect((await fetch(`${daemon.url}/runs`, { headers: { ...orgAdmin, 'x-org-id': 'acme' } })).status).toBe(200);
    expect((await fetch(`${daemon.url}/settings/plugins`, { headers: { ...orgAdmin, 'x-org-id': 'acme' } })).status).toBe(403);
    expect((await fetch(`${daemon.url}/platform/health`, { headers: { ...orgAdmin, 'x-org-id': 'acme' } })).status).toBe(403);
  });
});
