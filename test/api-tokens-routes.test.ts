import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedUser } from './helpers/seed.js';

let idp: DevIdp;
let daemon: TestDaemon;
let admin: Record<string, string>;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer });
  admin = {
    authorization: `Bearer ${await idp.mintAccessToken({ sub: 'sub-admin', username: 'root', realmRoles: ['admin'] })}`,
    'content-type': 'application/json',
  };
  await seedUser(daemon.services.db.knex, { sub: 'sub-dave', username: 'dave' }, [{ orgSlug: 'default', role: 'operator' }]);
  await seedUser(daemon.services.db.knex, { sub: 'sub-erin', username: 'erin' });
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

const post = (body: unknown) => fetch(`${daemon.url}/api-tokens`, { method: 'POST', headers: admin, body: JSON.stringify(body) });

describe('the personal access token routes', () => {
  it('create a token for a user in an organization, plaintext once, usable at once', async () => {
    const response = await post({ name: 'deploy bot', username: 'dave', org: 'default', expires_in_days: 30 });
    expect(response.status).toBe(201);
    const created = (await response.json()) as {
      id: string;
      token: string;
      token_prefix: string;
      user: { username: string };
      org: { slug: string };
      expires_at: string;
    };
    expect(created).toMatchObject({ user: { username: 'dave' }, org: { slug: 'default' } });
    expect(created.token.startsWith(created.token_prefix)).toBe(true);
    expect(new Date(created.expires_at).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);

    const me = await fetch(`${daemon.url}/auth/me`, { headers: { authorization: `Bearer ${created.token}` } });
    expect(((await me.json()) as { sub: string }).sub).toBe('sub-dave');

    const list = await fetch(`${daemon.url}/api-tokens?username=dave`, { headers: admin });
    const text = await list.text();
    expect(list.status).toBe(200);
    expect(text).toContain(created.id);
    expect(text).not.toContain(created.token);

    const audit = await daemon.services.db.knex('audit_logs').where({ event_type: 'api_token.created', resource_id: created.id }).first();
    expect(audit).toMatchObject({ actor_sub: 'sub-admin', actor_username: 'root' });
  });

  it.each([
    ['no name', { username: 'dave' }],
    ['an unknown field', { name: 'x', username: 'dave', scopes: ['all'] }],
    ['an unknown user', { name: 'x', username: 'nobody' }],
    ['a user who is not a member', { name: 'x', username: 'erin', org: 'default' }],
    ['an expiry in the past', { name: 'x', username: 'dave', expires_at: '2020-01-01T00:00:00Z' }],
    ['both kinds of expiry', { name: 'x', username: 'dave', expires_at: '2099-01-01T00:00:00Z', expires_in_days: 3 }],
    ['a lifetime over a year', { name: 'x', username: 'dave', expires_in_days: 4000 }],
  ])('refuse %s with 422 validation_failed and write no token', async (_, body) => {
    const before = await daemon.services.db.knex('personal_access_tokens').count<{ n: string }[]>('* as n');
    const response = await post(body);
    expect(response.status).toBe(422);
    expect(((await response.json()) as { code: string }).code).toBe('validation_failed');
    const after = await daemon.services.db.knex('personal_access_tokens').count<{ n: string }[]>('* as n');
    expect(Number(after[0]!.n)).toBe(Number(before[0]!.n));
  });

  it('revoke one token (204), then it answers 401', async () => {
    const { id, token } = (await (await post({ name: 'short', username: 'dave' })).json()) as { id: string; token: string };
    expect((await fetch(`${daemon.url}/api-tokens/${id}`, { method: 'DELETE', headers: admin })).status).toBe(204);
    expect((await fetch(`${daemon.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect(
      (await fetch(`${daemon.url}/api-tokens/00000000-0000-4000-8000-000000000000`, { method: 'DELETE', headers: admin })).status,
    ).toBe(404);
    expect((await fetch(`${daemon.url}/api-tokens/not-a-uuid`, { method: 'DELETE', headers: admin })).status).toBe(404);
  });

  it('revoke every token of a user', async () => {
    const tokens = await Promise.all(
      [post({ name: 'a', username: 'dave' }), post({ name: 'b', username: 'dave' })].map(
        async (p) => ((await (await p).json()) as { token: string }).token,
      ),
    );
    const response = await fetch(`${daemon.url}/api-tokens/by-user/dave`, { method: 'DELETE', headers: admin });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { revoked: number }).revoked).toBeGreaterThanOrEqual(2);
    for (const token of tokens)
      expect((await fetch(`${daemon.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await fetch(`${daemon.url}/api-tokens/by-user/nobody`, { method: 'DELETE', headers: admin })).status).toBe(404);
  });

  it('are for platform admins only', async () => {
    const operator = `Bearer ${await idp.mintAccessToken({ sub: 'sub-op', username: 'op', realmRoles: ['operator'] })}`;
    const response = await fetch(`${daemon.url}/api-tokens`, { headers: { authorization: operator } });
    expect(response.status).toBe(403);
  });
});
