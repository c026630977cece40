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
  const dormant = await seedOrg(knex, 'dormant');
  await knex('organizations').where({ id: dormant }).update({ is_active: false });
  await seedUser(knex, { sub: 'sub-vera', username: 'vera' }, [{ orgSlug: 'default', role: 'viewer' }]);
  admin = { authorization: `Bearer ${await idp.mintAccessToken({ sub: 'sub-root', username: 'root', realmRoles: ['admin'] })}` };
  viewer = { authorization: `Bearer ${await idp.mintAccessToken({ sub: 'sub-vera', username: 'vera', realmRoles: ['viewer'] })}` };
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

const answer = async (path: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> => {
  const response = await fetch(`${daemon.url}${path}`, { headers });
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, body: { ...body, request_id: undefined } };
};

describe('an organization that is not there', () => {
  it('is 404 org_not_found to a platform admin, named by the path or by X-Org-Id, missing or deactivated', async () => {
    for (const [path, headers] of [
      ['/orgs/no-such-org', {}],
      ['/runs', { 'x-org-id': 'no-such-org' }],
      ['/orgs/dormant', {}],
      ['/runs', { 'x-org-id': 'dormant' }],
    ] as const) {
      const { status, body } = await answer(path, { ...admin, ...headers });
      expect({ status, code: body.code }).toEqual({ status: 404, code: 'org_not_found' });
    }
    expect((await answer('/orgs/acme', admin)).status).toBe(200);
  });

  it("answers a non-admin the same for another tenant's organization as for none: 403 naming the organization scope", async () => {
    const foreign = await answer('/orgs/acme', viewer);
    const missing = await answer('/orgs/no-such-org', viewer);
    const dormant = await answer('/orgs/dormant', viewer);
    expect(foreign).toMatchObject({ status: 403, body: { code: 'forbidden', scope: 'org' } });
    expect(missing).toEqual(foreign);
    expect(dormant).toEqual(foreign);
    expect(await answer('/runs', { ...viewer, 'x-org-id': 'no-such-org' })).toEqual(
      await answer('/runs', { ...viewer, 'x-org-id': 'acme' }),
    );
  });

  it("leaves a platform route's refusal marked as platform-scoped", async () => {
    expect(await answer('/settings/permissions/actions', viewer)).toMatchObject({
      status: 403,
      body: { code: 'forbidden', scope: 'platform' },
    });
  });
});

describe('GET /auth/config', () => {
  it('says it is svc, so the CLI recognises the server before it sends a credential', async () => {
    const response = await fetch(`${daemon.url}/auth/config`);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ service: 'svc', version: expect.any(String), auth_enabled: true });
  });
});
