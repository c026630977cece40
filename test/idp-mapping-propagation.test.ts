import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/daemon/config/config.js';
import { startDaemon, type RunningDaemon } from '../src/daemon/daemon.js';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { withDatabase } from './helpers/backend.js';
import { postgresAnswers, POSTGRES_SERVER_URL } from './helpers/postgres-server.js';

/**
 * The IdP mapping index of several instances on one PostgreSQL database. Runs in both suites wherever a
 * PostgreSQL server answers (the embedded database serves one instance only).
 */
const available = await postgresAnswers();
const database = `svc_t_mapprop_${randomBytes(4).toString('hex')}`;
const admin = knexFactory({ client: 'pg', connection: POSTGRES_SERVER_URL, pool: { min: 0, max: 2 } });

describe.skipIf(!available)('IdP mappings across instances', () => {
  let idp: DevIdp;
  const daemons: RunningDaemon[] = [];
  let a: RunningDaemon;
  let b: RunningDaemon;

  const start = (url: string) =>
    startDaemon(
      loadConfig({
        SERVICE_PORT: '0',
        SERVICE_HOST: '127.0.0.1',
        SERVICE_LOG_LEVEL: 'silent',
        SERVICE_DATABASE_URL: url,
        SERVICE_IDP_ISSUER: idp.issuer,
        SERVICE_ORG_IDP_SYNC: 'true',
      }),
      createLogger('silent'),
    ).then((d) => (daemons.push(d), d));

  const asAdmin = async (orgRef?: string) => ({
    authorization: `Bearer ${await idp.mintAccessToken({ sub: 'prop-admin', username: 'prop-admin', realmRoles: ['admin'] })}`,
    'content-type': 'application/json',
    ...(orgRef ? { 'x-org-id': orgRef } : {}),
  });
  const send = async (d: RunningDaemon, method: string, path: string, body: unknown, orgRef?: string) =>
    (await fetch(`${d.url}${path}`, { method, headers: await asAdmin(orgRef), body: JSON.stringify(body) })).status;

  /** Logs `sub` in on `d` (a new token, so a new session) until its role in `slug` is `role`, or `ms` pass. */
  async function roleAfterLogins(
    d: RunningDaemon,
    sub: string,
    groups: string[],
    slug: string,
    role: string | undefined,
    ms: number,
  ): Promise<string | undefined> {
    const deadline = Date.now() + ms;
    let current: string | undefined;
    do {
      const token = await idp.mintAccessToken({ sub, username: sub, realmRoles: [], groups });
      expect((await fetch(`${d.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      const row = await d.services.db
        .knex('org_memberships as m')
        .join('users as u', 'u.id', 'm.user_id')
        .join('organizations as o', 'o.id', 'm.org_id')
        .where({ 'u.sub': sub, 'o.slug': slug })
        .first('m.role');
      current = row?.role;
      if (current === role) return current;
      await new Promise((resolve) => setTimeout(resolve, 25));
    } while (Date.now() < deadline);
    return current;
  }

  /** Polls `d`'s preview of a login of p-a carrying `/edge` until it does (or does not) concern `edge`, or `ms` pass. */
  async function edgeInPreview(d: RunningDaemon, wanted: boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    let present: boolean;
    do {
      const response = await fetch(`${d.url}/orgs/default/idp-mappings?preview_user=p-a&groups=/edge`, { headers: await asAdmin() });
      expect(response.status).toBe(200);
      const { changes } = (await response.json()) as { changes: { org: { slug: string } }[] };
      present = changes.some((c) => c.org.slug === 'edge');
      if (present === wanted) return present;
      await new Promise((resolve) => setTimeout(resolve, 25));
    } while (Date.now() < deadline);
    return present;
  }

  beforeAll(async () => {
    idp = await startDevIdp();
    await admin.raw(`CREATE DATABASE ${database}`);
    a = await start(withDatabase(POSTGRES_SERVER_URL, database));
    b = await start(withDatabase(POSTGRES_SERVER_URL, database));
    expect(await send(a, 'POST', '/orgs', { slug: 'edge', name: 'Edge' })).toBe(201);
  });

  afterAll(async () => {
    for (const d of daemons) await d.stop();
    await idp?.stop();
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
  });

  it('a mapping created on one instance is used by a login on the other within one second', async () => {
    // B has loaded its index (start-up) without the mapping: only the notification can bring it in time.
    await b.services.mappingIndex.settled();
    expect(b.services.mappingIndex.loaded).toBe(true);
    expect(await send(a, 'POST', '/orgs/edge/idp-mappings', { claim: 'groups', value: '/edge', role: 'operator' }, 'edge')).toBe(201);
    expect(await roleAfterLogins(b, 'p-a', ['/edge'], 'edge', 'operator', 1000)).toBe('operator');
  });

  it('an organization deactivated on one instance stops matching on the other within one second', async () => {
    expect(await send(a, 'PATCH', '/orgs/edge', { is_active: false })).toBe(200);
    // Polled through the preview, which writes nothing: a login that raced the notification would leave a row behind.
    expect(await edgeInPreview(b, false, 1000)).toBe(false);
    expect(await roleAfterLogins(b, 'p-b', ['/edge'], 'edge', undefined, 0)).toBeUndefined();
    expect(await send(a, 'PATCH', '/orgs/edge', { is_active: true })).toBe(200);
    expect(await edgeInPreview(b, true, 1000)).toBe(true);
    expect(await roleAfterLogins(b, 'p-b', ['/edge'], 'edge', 'operator', 0)).toBe('operator');
  });
});
