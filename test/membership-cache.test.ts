import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/daemon/config/config.js';
import { startDaemon, type RunningDaemon } from '../src/daemon/daemon.js';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { MembershipCache } from '../src/daemon/authz/membership-cache.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { BACKEND } from './helpers/backend.js';
import { copyTemplate, type DatabaseLocation } from './helpers/database.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';
import { queriesCounted } from './helpers/query-count.js';

/**
 * Roles in organizations are cached per instance and emptied by every membership or user-activity
 * change: on the writing instance before it answers, on the others by notification (PostgreSQL).
 */
let idp: DevIdp;

beforeAll(async () => {
  idp = await startDevIdp();
});
afterAll(async () => {
  await idp?.stop();
});

const sessions = new Map<string, string>();

/** One token (so one session, provisioned once) per subject; `root` is a platform admin. */
async function tokenOf(sub: string): Promise<string> {
  if (!sessions.has(sub))
    sessions.set(sub, await idp.mintAccessToken({ sub, username: sub, realmRoles: sub === 'root' ? ['admin'] : [], groups: [] }));
  return sessions.get(sub)!;
}

async function status(
  d: RunningDaemon,
  sub: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<number> {
  const authorization = `Bearer ${await tokenOf(sub)}`;
  return (
    await fetch(`${d.url}${path}`, {
      method,
      headers: { authorization, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  ).status;
}

/** A request in a new session carrying `groups`: login sync runs before the organization is resolved. */
async function statusAfterLogin(d: RunningDaemon, sub: string, groups: string[], path: string): Promise<number> {
  const token = await idp.mintAccessToken({ sub, username: sub, realmRoles: [], groups });
  return (await fetch(`${d.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;
}

/** Runs `work` and answers how many of the daemon's queries read or wrote memberships meanwhile. */
const membershipQueries = (d: RunningDaemon, work: () => Promise<unknown>) =>
  queriesCounted(d.services.db.knex, (sql) => sql.includes('org_memberships'), work);

/** Polls `sub`'s GET `path` on `d` until it answers `expected`, or `ms` pass; answers the last status. */
async function statusWithin(d: RunningDaemon, sub: string, path: string, expected: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let last: number;
  do {
    last = await status(d, sub, 'GET', path);
    if (last === expected) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  } while (Date.now() < deadline);
  return last;
}

const ORG_ID = '00000000-0000-4000-8000-000000000001';

describe('MembershipCache', () => {
  it('drops an answer read before an invalidation', () => {
    const cache = new MembershipCache();
    const before = cache.generation;
    cache.invalidate();
    cache.set(ORG_ID, 'raced', 'admin', before);
    expect(cache.get(ORG_ID, 'raced')).toBeUndefined();
    cache.set(ORG_ID, 'raced', null, cache.generation);
    expect(cache.get(ORG_ID, 'raced')).toBeNull();
  });

  it('holds at most its bound, and nothing past its lifetime', () => {
    const bounded = new MembershipCache({ maxEntries: 2 });
    for (const sub of ['a', 'b', 'c']) bounded.set(ORG_ID, sub, 'viewer', bounded.generation);
    expect(bounded.size).toBeLessThanOrEqual(2);
    expect(bounded.get(ORG_ID, 'c')).toBe('viewer');
    const expired = new MembershipCache({ ttlMs: 0 });
    expired.set(ORG_ID, 'a', 'viewer', expired.generation);
    expect(expired.get(ORG_ID, 'a')).toBeUndefined();
  });
});

describe('membership cache on one instance', () => {
  let daemon: TestDaemon;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // No auto-join: only the members API and group sync (tokens here carry no groups unless a test says so) write memberships.
    daemon = await startTestDaemon({
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
      SERVICE_ORG_IDP_SYNC: 'true',
      SERVICE_ORG_IDP_SYNC_AUTHORITATIVE: 'true',
    });
    const knex = daemon.services.db.knex;
    await seedOrg(knex, 'acme');
    for (const [sub, role] of [
      ['counted', 'viewer'],
      ['removed', 'viewer'],
      ['promoted', 'viewer'],
    ] as const) {
      ids[sub] = await seedUser(knex, { sub, username: sub }, [{ orgSlug: 'acme', role }]);
    }
  });
  afterAll(async () => {
    await daemon?.close();
  });

  it('asks the database for a role once, then answers from memory', async () => {
    expect(await status(daemon, 'counted', 'GET', '/orgs/acme')).toBe(200);
    daemon.services.membershipCache.invalidate();
    expect(await membershipQueries(daemon, () => status(daemon, 'counted', 'GET', '/orgs/acme'))).toBe(1);
    expect(await membershipQueries(daemon, () => status(daemon, 'counted', 'GET', '/orgs/acme'))).toBe(0);
  });

  it('refuses a member removed through the API on their very next request', async () => {
    expect(await status(daemon, 'removed', 'GET', '/orgs/acme')).toBe(200);
    expect(await status(daemon, 'root', 'DELETE', `/orgs/acme/members/${ids.removed}`)).toBe(204);
    expect(await status(daemon, 'removed', 'GET', '/orgs/acme')).toBe(403);
  });

  it('applies a role change through the API on the next request, both ways', async () => {
    // The mappings of an organization are for its admins only.
    const adminsOnly = '/orgs/acme/idp-mappings';
    expect(await status(daemon, 'promoted', 'GET', adminsOnly)).toBe(403);
    expect(await status(daemon, 'root', 'PATCH', `/orgs/acme/members/${ids.promoted}`, { role: 'admin' })).toBe(200);
    expect(await status(daemon, 'promoted', 'GET', adminsOnly)).toBe(200);
    expect(await status(daemon, 'root', 'PATCH', `/orgs/acme/members/${ids.promoted}`, { role: 'viewer' })).toBe(200);
    expect(await status(daemon, 'promoted', 'GET', adminsOnly)).toBe(403);
  });

  it('forgets a cached non-member once added through the API', async () => {
    const newcomer = await seedUser(daemon.services.db.knex, { sub: 'newcomer', username: 'newcomer' });
    expect(await status(daemon, 'newcomer', 'GET', '/orgs/acme')).toBe(403);
    expect(await status(daemon, 'root', 'POST', '/orgs/acme/members', { user_id: newcomer, role: 'viewer' })).toBe(201);
    expect(await status(daemon, 'newcomer', 'GET', '/orgs/acme')).toBe(200);
  });

  it('applies a membership that login sync adds or removes to the very request of that login', async () => {
    expect(
      await status(
        daemon,
        'root',
        'POST',
        '/orgs/acme/idp-mappings',
        { claim: 'groups', value: '/acme-team', role: 'viewer' },
        { 'x-org-id': 'acme' },
      ),
    ).toBe(201);
    await seedUser(daemon.services.db.knex, { sub: 'synced', username: 'synced' });
    expect(await statusAfterLogin(daemon, 'synced', [], '/orgs/acme')).toBe(403);
    expect(await statusAfterLogin(daemon, 'synced', ['/acme-team'], '/orgs/acme')).toBe(200);
    expect(await statusAfterLogin(daemon, 'synced', [], '/orgs/acme')).toBe(403);
  });
});

// Notifications need PostgreSQL; the embedded database serves one instance, whose own writes are covered above.
describe.skipIf(BACKEND === 'pglite')('membership cache across instances (PostgreSQL)', () => {
  let location: DatabaseLocation;
  let sql: Knex;
  let a: RunningDaemon;
  let b: RunningDaemon;
  const ids: Record<string, string> = {};

  const start = () =>
    startDaemon(
      loadConfig({
        SERVICE_PORT: '0',
        SERVICE_HOST: '127.0.0.1',
        SERVICE_LOG_LEVEL: 'silent',
        SERVICE_IDP_ISSUER: idp.issuer,
        SERVICE_ORG_AUTO_JOIN: 'false',
        ...location.env,
      }),
      createLogger('silent'),
    );

  /**
   * Both instances answer `sub` (200) from memory, so without an invalidation they would go on answering
   * 200. Asked until they do: a listener (re)connecting after start-up empties the cache.
   */
  async function cachedOnBoth(sub: string): Promise<void> {
    for (const d of [a, b]) {
      const deadline = Date.now() + 5000;
      let queries: number;
      do {
        queries = await membershipQueries(d, async () => expect(await status(d, sub, 'GET', '/orgs/acme')).toBe(200));
      } while (queries > 0 && Date.now() < deadline);
      expect(queries).toBe(0);
    }
  }

  beforeAll(async () => {
    location = await copyTemplate();
    // Plain SQL from outside both instances, as an operator deactivating a user would.
    sql = (await location.open()).knex;
    await seedOrg(sql, 'acme');
    for (const sub of ['remote-removed', 'deactivated'])
      ids[sub] = await seedUser(sql, { sub, username: sub }, [{ orgSlug: 'acme', role: 'viewer' }]);
    [a, b] = await Promise.all([start(), start()]);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await sql?.destroy();
    await location?.drop();
  });

  it('refuses on the other instance, within a second, a member removed through one', async () => {
    await cachedOnBoth('remote-removed');
    expect(await status(a, 'root', 'DELETE', `/orgs/acme/members/${ids['remote-removed']}`)).toBe(204);
    expect(await status(a, 'remote-removed', 'GET', '/orgs/acme')).toBe(403);
    expect(await statusWithin(b, 'remote-removed', '/orgs/acme', 403, 1000)).toBe(403);
  });

  it('refuses on every instance, within a second, a user deactivated by plain SQL', async () => {
    await cachedOnBoth('deactivated');
    await sql('users').where({ id: ids.deactivated }).update({ is_active: false });
    for (const d of [a, b]) expect(await statusWithin(d, 'deactivated', '/orgs/acme', 403, 1000)).toBe(403);
  });
});
