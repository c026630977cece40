import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/daemon/config/config.js';
import { startDaemon, type RunningDaemon } from '../src/daemon/daemon.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { BACKEND } from './helpers/backend.js';
import { copyTemplate, type DatabaseLocation } from './helpers/database.js';
import { queriesCounted } from './helpers/query-count.js';
import { seedOrg } from './helpers/seed.js';
import { TcpProxy } from './helpers/tcp-proxy.js';

/**
 * Organizations are cached per instance until the next change to one (not for a timeout): a change
 * through another instance, or by plain SQL, reaches every instance by `svc_memberships`, and one made
 * while an instance's link was down reaches it when its listener reconnects. Notifications across
 * instances need PostgreSQL; the embedded database serves one instance.
 */

// Development mode: every request is the mock platform admin, who needs no membership but an active organization.
// It is told 404 org_not_found for an organization gone or inactive (anyone else gets the same 403 as for a foreign one).
const GONE = 404;
const startDevDaemon = (env: Record<string, string>) =>
  startDaemon(
    loadConfig({ SERVICE_PORT: '0', SERVICE_HOST: '127.0.0.1', SERVICE_LOG_LEVEL: 'silent', SERVICE_AUTH_DISABLED: 'true', ...env }),
    createLogger('silent'),
  );

const send = (d: RunningDaemon, method: string, path: string, body?: unknown) =>
  fetch(`${d.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Runs `work` and answers how many times the request path read an organization meanwhile (handlers' own reads aside). */
const organizationReads = (d: RunningDaemon, work: () => Promise<unknown>) =>
  queriesCounted(d.services.db.knex, (sql) => sql.startsWith('select "id", "slug", "is_active" from "organizations"'), work);

/**
 * The instance answers GET `path` with `expected`, its organization cached, so without an invalidation
 * it would go on answering it. Asked until it does: a listener (re)connecting after start-up empties the
 * cache.
 */
async function cached(d: RunningDaemon, path: string, expected: number): Promise<void> {
  const deadline = Date.now() + 5000;
  let reads: number;
  do {
    reads = await organizationReads(d, async () => expect((await send(d, 'GET', path)).status).toBe(expected));
  } while (reads > 0 && Date.now() < deadline);
  expect(reads).toBe(0);
}

/** Polls GET `path` on `d` until it answers `expected`, or `ms` pass; answers the last status. */
async function statusWithin(d: RunningDaemon, path: string, expected: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let last: number;
  do {
    last = (await send(d, 'GET', path)).status;
    if (last === expected) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  } while (Date.now() < deadline);
  return last;
}

describe.skipIf(BACKEND === 'pglite')('organization changes across instances (PostgreSQL)', () => {
  let location: DatabaseLocation;
  let sql: Knex;
  let a: RunningDaemon;
  let b: RunningDaemon;
  const start = () => startDevDaemon(location.env);

  beforeAll(async () => {
    location = await copyTemplate();
    sql = (await location.open()).knex;
    for (const slug of ['deactivated-via-api', 'deactivated-by-sql', 'deleted-via-api']) await seedOrg(sql, slug);
    [a, b] = await Promise.all([start(), start()]);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await sql?.destroy();
    await location?.drop();
  });

  it('refuses on the other instance, within a second, an organization deactivated through one', async () => {
    const path = '/orgs/deactivated-via-api/members';
    await cached(b, path, 200);
    expect((await send(a, 'PATCH', '/orgs/deactivated-via-api', { is_active: false })).status).toBe(200);
    expect((await send(a, 'GET', path)).status).toBe(GONE);
    expect(await statusWithin(b, path, GONE, 1000)).toBe(GONE);
  });

  it('refuses on every instance, within a second, an organization deactivated by plain SQL', async () => {
    const path = '/orgs/deactivated-by-sql/members';
    for (const d of [a, b]) await cached(d, path, 200);
    await sql('organizations').where({ slug: 'deactivated-by-sql' }).update({ is_active: false });
    for (const d of [a, b]) expect(await statusWithin(d, path, GONE, 1000)).toBe(GONE);
  });

  it('forgets on the other instance, within a second, an organization deleted through one', async () => {
    const path = '/orgs/deleted-via-api/members';
    await cached(b, path, 200);
    expect((await send(a, 'DELETE', '/orgs/deleted-via-api')).status).toBe(204);
    expect(await statusWithin(b, path, GONE, 1000)).toBe(GONE);
  });

  it('finds on the other instance, within a second, an organization created through one after it was asked for', async () => {
    const path = '/orgs/created-later/members';
    await cached(b, path, GONE);
    expect((await send(a, 'POST', '/orgs', { slug: 'created-later', name: 'Created later' })).status).toBe(201);
    expect(await statusWithin(b, path, 200, 1000)).toBe(200);
  });
});

describe.skipIf(BACKEND === 'pglite')('an instance whose database link returns (PostgreSQL)', () => {
  let location: DatabaseLocation;
  let proxy: TcpProxy;
  let sql: Knex;
  let direct: RunningDaemon;
  let proxied: RunningDaemon;

  beforeAll(async () => {
    location = await copyTemplate();
    sql = (await location.open()).knex;
    await seedOrg(sql, 'changed-while-away');
    const url = new URL(location.env.SERVICE_DATABASE_URL!);
    proxy = new TcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    await proxy.start();
    url.host = `127.0.0.1:${proxy.port}`;
    [direct, proxied] = await Promise.all([startDevDaemon(location.env), startDevDaemon({ SERVICE_DATABASE_URL: url.toString() })]);
  });
  afterAll(async () => {
    await proxy?.start().catch(() => {});
    await direct?.stop();
    await proxied?.stop();
    await proxy?.stop();
    await sql?.destroy();
    await location?.drop();
  });

  it('converges, within about a second of the link returning, on a change it missed while away', async () => {
    const path = '/orgs/changed-while-away/members';
    await cached(proxied, path, 200);
    // Long enough for several failed reconnection attempts in a row: a backoff that had grown past a
    // second by now would leave the instance on what it cached until its next attempt.
    await proxy.stop();
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect((await send(direct, 'PATCH', '/orgs/changed-while-away', { is_active: false })).status).toBe(200);
    await proxy.start();
    expect(await statusWithin(proxied, path, GONE, 1500)).toBe(GONE);
  });
});
