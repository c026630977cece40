import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_PRINCIPAL } from '../src/shared/auth/principal.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedUser } from './helpers/seed.js';

let daemon: TestDaemon;
let aliceId: string;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  daemon = await startTestDaemon({});
  aliceId = await seedUser(daemon.services.db.knex, { sub: 'sub-alice', username: 'alice', email: 'alice@example.test' }, [
    { orgSlug: 'default', role: 'operator' },
  ]);
});
afterAll(() => daemon?.close());

const issue = (options: { expiresAt?: Date | null } = {}) =>
  daemon.services.pats.create({ name: 'ci', username: 'alice', org: 'default', expiresAt: options.expiresAt ?? null }, DEV_PRINCIPAL);

async function authFailedEntries(tokenId: string) {
  return daemon.services.db.knex('audit_logs').where({ event_type: 'auth.failed', resource_id: tokenId }).select();
}

describe('personal access tokens', () => {
  it('are recognisable, shown once, and only a digest is stored', async () => {
    const created = await issue();
    expect(created.token).toMatch(/^svc_pat_[A-Za-z0-9_-]{43}$/);
    const row = await daemon.services.db.knex('personal_access_tokens').where({ id: created.id }).first();
    expect(JSON.stringify(row)).not.toContain(created.token.slice(8));
    expect(row.token_digest).toMatch(/^[0-9a-f]{64}$/);
    const listed = await daemon.services.pats.list({ includeRevoked: true });
    expect(JSON.stringify(listed)).not.toContain(created.token.slice(8));
  });

  it('authenticate as their user, in their organization, and record their use', async () => {
    const created = await issue();
    const response = await fetch(`${daemon.url}/auth/me`, { headers: bearer(created.token) });
    expect(response.status).toBe(200);
    const me = (await response.json()) as {
      sub: string;
      auth_method: string;
      token: { id: string };
      memberships: { slug: string; role: string }[];
    };
    expect(me).toMatchObject({ sub: 'sub-alice', auth_method: 'pat', token: { id: created.id } });
    expect(me.memberships).toEqual([expect.objectContaining({ slug: 'default', role: 'operator' })]);
    const row = await daemon.services.db.knex('personal_access_tokens').where({ id: created.id }).first();
    expect(row.last_used_at).not.toBeNull();
  });

  it('answer 401 for an unknown token, with no audit entry naming anybody', async () => {
    const response = await fetch(`${daemon.url}/auth/me`, { headers: bearer(`svc_pat_${'A'.repeat(43)}`) });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('invalid_token');
  });

  it('stop working when revoked: 401 and an auth.failed entry owned by the token owner', async () => {
    const created = await issue();
    await daemon.services.pats.revoke(created.id, DEV_PRINCIPAL);
    const response = await fetch(`${daemon.url}/auth/me`, { headers: bearer(created.token) });
    expect(response.status).toBe(401);
    const entries = await authFailedEntries(created.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor_sub: 'sub-alice', actor_username: 'alice', outcome: 'failure' });
    expect(entries[0].details_json).toMatchObject({ reason: 'revoked', route: 'GET /auth/me' });
  });

  it('stop working when expired: 401 and an auth.failed entry', async () => {
    const created = await issue({ expiresAt: new Date(Date.now() + 60_000) });
    await daemon.services.db
      .knex('personal_access_tokens')
      .where({ id: created.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const response = await fetch(`${daemon.url}/auth/me`, { headers: bearer(created.token) });
    expect(response.status).toBe(401);
    expect((await authFailedEntries(created.id))[0].details_json).toMatchObject({ reason: 'expired' });
  });

  it('stop working when their user is deactivated', async () => {
    const bobId = await seedUser(daemon.services.db.knex, { sub: 'sub-bob', username: 'bob' }, [{ orgSlug: 'default', role: 'viewer' }]);
    const created = await daemon.services.pats.create({ name: 'x', username: 'bob', org: 'default', expiresAt: null }, DEV_PRINCIPAL);
    expect((await fetch(`${daemon.url}/auth/me`, { headers: bearer(created.token) })).status).toBe(200);
    await daemon.services.db.knex('users').where({ id: bobId }).update({ is_active: false });
    const response = await fetch(`${daemon.url}/auth/me`, { headers: bearer(created.token) });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('account_disabled');
  });

  it('are all revoked by user', async () => {
    const a = await issue();
    const b = await issue();
    const count = await daemon.services.pats.revokeAllOfUser('alice', DEV_PRINCIPAL);
    expect(count).toBeGreaterThanOrEqual(2);
    for (const token of [a, b]) expect((await fetch(`${daemon.url}/auth/me`, { headers: bearer(token.token) })).status).toBe(401);
    expect(aliceId).toBeTruthy();
  });

  it('act with no realm role: admin-only routes refuse them with 403 and an authz.denied entry', async () => {
    const created = await issue();
    const response = await fetch(`${daemon.url}/api-tokens`, { headers: bearer(created.token) });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('forbidden');
    const denied = await daemon.services.db.knex('audit_logs').where({ event_type: 'authz.denied', actor_sub: 'sub-alice' }).first();
    expect(denied).toMatchObject({ resource_id: 'GET /api-tokens', action: 'api_token:manage' });
  });
});
