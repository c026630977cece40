import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_PRINCIPAL } from '../src/shared/auth/principal.js';
import { CATALOGUE } from '../src/shared/catalogue/catalogue.js';
import type { CatalogueRoute } from '../src/shared/catalogue/types.js';
import { scopeOf } from '../src/shared/policy/org-scope.js';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

/**
 * Every catalogue route against every kind of caller. The expected class is computed here from the
 * catalogue, the policy table of the specification and our organization-scope list, independently of
 * the daemon's decision code.
 */
type Outcome = '401' | '403' | 'pass';

interface CallerSpec {
  readonly name: string;
  readonly kind: 'anonymous' | 'jwt' | 'pat' | 'worker' | 'dev';
  readonly realmRoles: readonly string[];
  /** Membership role in the active organization (`default`), if any. */
  readonly orgRole?: string;
}

/**
 * The spec's policy table, restated here rather than imported so the daemon's table is checked against
 * it; `viewer` includes `approver`, after the spec's roles table ("approver ... read everything";
 * docs/decisions.md).
 */
const ROLE_GRANTS: Readonly<Record<string, readonly string[]>> = {
  viewer: ['admin', 'approver', 'auditor', 'operator', 'viewer'],
  auditor: ['admin', 'auditor', 'operator'],
  operator: ['admin', 'operator'],
  approver: ['admin', 'approver'],
  admin: ['admin'],
};

const WORKER_TOKEN = 'matrix-worker-token-0123456789abcdef';
const STREAM_ROUTES = new Set(['GET /bff/runs/{run_id}/events/stream', 'GET /runs/{run_id}/monitors/stream']);

const CALLERS: readonly CallerSpec[] = [
  { name: 'anonymous', kind: 'anonymous', realmRoles: [] },
  ...['admin', 'operator', 'approver', 'auditor', 'viewer'].map((role) => ({
    name: `realm ${role}`,
    kind: 'jwt' as const,
    realmRoles: [role],
  })),
  { name: 'org member (viewer)', kind: 'jwt', realmRoles: [], orgRole: 'viewer' },
  { name: 'org member (approver)', kind: 'jwt', realmRoles: [], orgRole: 'approver' },
  { name: 'org admin', kind: 'jwt', realmRoles: [], orgRole: 'admin' },
  { name: 'member of another organization', kind: 'jwt', realmRoles: [] },
  { name: 'personal access token (operator)', kind: 'pat', realmRoles: [], orgRole: 'operator' },
  { name: 'worker token', kind: 'worker', realmRoles: [] },
  { name: 'development mode', kind: 'dev', realmRoles: DEV_PRINCIPAL.realmRoles },
];

function expected(route: CatalogueRoute, caller: CallerSpec): Outcome {
  const policy = route.defaultPolicy;
  if (caller.kind === 'dev' || policy === 'public') return 'pass';
  if (policy === 'internal') return caller.kind === 'worker' ? 'pass' : '401';
  if (policy === 'custom' && !STREAM_ROUTES.has(route.key)) return 'pass';
  if (caller.kind === 'anonymous' || caller.kind === 'worker') return '401';
  if (policy === 'custom') return 'pass';
  const isPlatformAdmin = caller.realmRoles.includes('admin');
  const orgDecided = scopeOf(route) === 'org' || policy === 'org_member' || policy === 'org_admin';
  if (orgDecided) {
    if (isPlatformAdmin) return 'pass';
    if (!caller.orgRole) return '403';
    if (policy === 'authenticated' || policy === 'org_member') return 'pass';
    if (policy === 'org_admin') return caller.orgRole === 'admin' ? 'pass' : '403';
    return ROLE_GRANTS[policy]!.includes(caller.orgRole) ? 'pass' : '403';
  }
  if (policy === 'authenticated') return 'pass';
  return caller.realmRoles.some((role) => ROLE_GRANTS[policy]!.includes(role)) ? 'pass' : '403';
}

const REFUSED_401 = new Set(['unauthenticated', 'invalid_token', 'token_expired', 'invalid_internal_token', 'basic_auth_refused']);
const REFUSED_403 = new Set(['forbidden', 'route_disabled']);

let idp: DevIdp;
let daemon: TestDaemon;
let dev: TestDaemon;
const headersOf = new Map<string, Record<string, string>>();

beforeAll(async () => {
  idp = await startDevIdp();
  [daemon, dev] = await Promise.all([
    startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_INTERNAL_API_TOKEN: WORKER_TOKEN, SERVICE_ORG_AUTO_JOIN: 'false' }),
    startTestDaemon({ SERVICE_AUTH_DISABLED: 'true' }),
  ]);
  const knex = daemon.services.db.knex;
  await seedOrg(knex, 'acme');
  for (const [index, caller] of CALLERS.entries()) {
    const sub = `matrix-${index}`;
    if (caller.kind === 'jwt') {
      const memberships = caller.orgRole
        ? [{ orgSlug: 'default', role: caller.orgRole }]
        : caller.name.startsWith('member of another')
          ? [{ orgSlug: 'acme', role: 'admin' }]
          : [];
      await seedUser(knex, { sub, username: sub }, memberships);
      headersOf.set(caller.name, {
        authorization: `Bearer ${await idp.mintAccessToken({ sub, username: sub, realmRoles: [...caller.realmRoles], expiresInSeconds: 3600 })}`,
      });
    } else if (caller.kind === 'pat') {
      await seedUser(knex, { sub, username: sub }, [{ orgSlug: 'default', role: caller.orgRole! }]);
      const created = await daemon.services.pats.create({ name: 'matrix', username: sub, org: 'default', expiresAt: null }, DEV_PRINCIPAL);
      headersOf.set(caller.name, { authorization: `Bearer ${created.token}` });
    } else if (caller.kind === 'worker') {
      headersOf.set(caller.name, { 'x-internal-token': WORKER_TOKEN });
    } else {
      headersOf.set(caller.name, {});
    }
  }
});

afterAll(async () => {
  await Promise.all([daemon?.close(), dev?.close()]);
  await idp?.stop();
});

function concrete(path: string): string {
  return path.replace('{org_ref}', 'default').replace(/\{[a-z_]+\}/g, 'x-1');
}

async function outcome(base: string, route: CatalogueRoute, headers: Record<string, string>): Promise<Outcome> {
  const response = await fetch(base + concrete(route.path), { method: route.method, headers: { ...headers, 'x-org-id': 'default' } });
  const body = response.headers.get('content-type')?.includes('json')
    ? ((await response.json().catch(() => ({}))) as { code?: string })
    : (await response.arrayBuffer(), {});
  if (REFUSED_401.has(body.code ?? '')) return '401';
  if (REFUSED_403.has(body.code ?? '')) return '403';
  return 'pass';
}

describe('the authorization matrix: every route x every kind of caller', () => {
  it.each(CALLERS.map((caller) => [caller.name, caller] as const))('%s', async (_, caller) => {
    const base = caller.kind === 'dev' ? dev.url : daemon.url;
    const mismatches: string[] = [];
    const routes = [...CATALOGUE.routes];
    // A few requests at a time keeps the run short without flooding the daemon.
    for (let i = 0; i < routes.length; i += 8) {
      await Promise.all(
        routes.slice(i, i + 8).map(async (route) => {
          const got = await outcome(base, route, headersOf.get(caller.name)!);
          const want = expected(route, caller);
          if (got !== want) mismatches.push(`${route.key} (${route.defaultPolicy}, ${scopeOf(route)}): expected ${want}, got ${got}`);
        }),
      );
    }
    expect(mismatches).toEqual([]);
  });

  it('keeps separation of duties: an operator cannot decide approvals, an approver cannot start runs', async () => {
    const knex = daemon.services.db.knex;
    await seedUser(knex, { sub: 'sod-op', username: 'sod-op' }, [{ orgSlug: 'default', role: 'operator' }]);
    await seedUser(knex, { sub: 'sod-ap', username: 'sod-ap' }, [{ orgSlug: 'default', role: 'approver' }]);
    const operator = {
      authorization: `Bearer ${await idp.mintAccessToken({ sub: 'sod-op', username: 'sod-op', realmRoles: ['operator'] })}`,
    };
    const approver = {
      authorization: `Bearer ${await idp.mintAccessToken({ sub: 'sod-ap', username: 'sod-ap', realmRoles: ['approver'] })}`,
    };
    const decide = (h: Record<string, string>) => fetch(`${daemon.url}/approvals/a1/decision`, { method: 'POST', headers: h });
    const trigger = (h: Record<string, string>) => fetch(`${daemon.url}/runs`, { method: 'POST', headers: h });
    expect((await decide(operator)).status).toBe(403);
    expect((await trigger(approver)).status).toBe(403);
    // The approver passes authorization; the decision route then refuses the empty body on its own terms.
    const decided = await decide(approver);
    expect(decided.status).toBe(422);
    expect(((await decided.json()) as { code: string }).code).toBe('validation_failed');
    // The operator passes authorization; the run route then refuses the empty body on its own terms.
    const started = await trigger(operator);
    expect(started.status).toBe(422);
    expect(((await started.json()) as { code: string }).code).toBe('validation_failed');
  });

  it('lets an approver read what it decides: viewer routes pass, auditor routes stay refused', async () => {
    const knex = daemon.services.db.knex;
    await seedUser(knex, { sub: 'read-ap', username: 'read-ap' }, [{ orgSlug: 'default', role: 'approver' }]);
    const approver = {
      authorization: `Bearer ${await idp.mintAccessToken({ sub: 'read-ap', username: 'read-ap', realmRoles: ['approver'] })}`,
      'x-org-id': 'default',
    };
    expect((await fetch(`${daemon.url}/approvals/pending`, { headers: approver })).status).toBe(200);
    expect((await fetch(`${daemon.url}/runs`, { headers: approver })).status).toBe(200);
    expect((await fetch(`${daemon.url}/audit-logs`, { headers: approver })).status).toBe(403);
  });
});
