import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, count, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

let world: World;
/** Added to the daemon's clock: authorizations expire when a test moves it on. */
let skewMs = 0;
const knex = () => world.knex();
const audits = (eventType: string, resourceType = 'platform_sync_profile') =>
  count(knex()('audit_logs').where({ event_type: eventType, resource_type: resourceType }));

beforeAll(async () => {
  world = await startWorld({}, { clock: () => new Date(Date.now() + skewMs) });
});
afterAll(() => world?.close());

const BUNDLE = 'variables: []\n';
const profile = (fields: Record<string, unknown> = {}) => ({
  name: `profile ${Math.random().toString(36).slice(2, 8)}`,
  source: { kind: 'bundle', bundle: BUNDLE },
  target: { scope: 'org', org: 'acme' },
  ...fields,
});
const root = (method: string, path: string, body?: unknown) => call(world, 'root', method, path, body);

async function newProfile(fields: Record<string, unknown> = {}): Promise<string> {
  const created = await root('POST', '/platform-sync/profiles', profile(fields));
  if (created.status !== 201) throw new Error(`POST /platform-sync/profiles answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

describe('platform sync profiles', () => {
  it('creates, reads, lists, changes and removes a profile, each write audited; prune is off unless asked', async () => {
    const before = await audits('entity.created');
    const created = await root('POST', '/platform-sync/profiles', profile({ name: 'acme from bundle', families: ['variables'] }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'acme from bundle',
      source: { kind: 'bundle', bundle: BUNDLE },
      target: { scope: 'org', org: 'acme' },
      families: ['variables'],
      prune: false,
      revision: 1,
      last_applied_at: null,
      created_by: 'sub-root',
    });
    expect(created.body.source.bundle_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await audits('entity.created')).toBe(before + 1);
    const id = created.body.id as string;

    expect((await root('GET', `/platform-sync/profiles/${id}`)).body.id).toBe(id);
    const list = await root('GET', '/platform-sync/profiles?q=FROM%20BUNDLE&target_org=acme&source_kind=bundle');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect((await root('GET', '/platform-sync/profiles?target_org=globex')).body.total).toBe(0);

    const changed = await root('PATCH', `/platform-sync/profiles/${id}`, { prune: true, target: { scope: 'platform' }, families: [] });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ prune: true, target: { scope: 'platform' }, families: [], revision: 2, updated_by: 'sub-root' });
    expect(await audits('entity.updated')).toBe(1);

    expect((await root('DELETE', `/platform-sync/profiles/${id}`)).status).toBe(204);
    expect((await root('GET', `/platform-sync/profiles/${id}`)).status).toBe(404);
    expect(await audits('entity.deleted')).toBe(1);
  });

  it('takes an installation source with its token as a secret reference of the home organization, never a value', async () => {
    const source = { kind: 'installation', base_url: 'https://svc.example.test', token_ref: "{{ secret('peer-token') }}", org: 'acme' };
    const created = await root('POST', '/platform-sync/profiles', profile({ source }));
    expect(created.status).toBe(201);
    expect(created.body.source).toEqual(source);
    const plain = await root('POST', '/platform-sync/profiles', profile({ source: { ...source, token_ref: 'svc_pat_plaintext' } }));
    expect(plain.status).toBe(422);
    expect(plain.body.errors[0].path).toBe('source.token_ref');
    const foreign = await root(
      'POST',
      '/platform-sync/profiles',
      profile({ source: { ...source, token_ref: 'builtin://orgs/globex/secrets/peer-token' } }),
    );
    expect(foreign.status).toBe(422);
    // Moving the profile to another organization re-checks the reference it keeps.
    const located = await newProfile({ source: { ...source, token_ref: 'builtin://orgs/acme/secrets/peer-token' } });
    const moved = await root('PATCH', `/platform-sync/profiles/${located}`, { target: { scope: 'org', org: 'globex' } });
    expect(moved.status).toBe(422);
  });

  it.each([
    ['an unknown target organization', { target: { scope: 'org', org: 'nowhere' } }],
    ['a plain-text bundle key', { source: { kind: 'bundle' } }],
    ['a file id that is no uuid', { source: { kind: 'file', file_id: 'bundle.yaml' } }],
    [
      'a base url with credentials',
      { source: { kind: 'installation', base_url: 'https://u:p@peer.test', token_ref: "{{ secret('t') }}" } },
    ],
    ['an unknown field', { schedule: '@daily' }],
    ['a family name that is no identifier', { families: ['Variables!'] }],
    ['a family the engine does not have', { families: ['gadgets'] }],
    ['a family of the other scope', { families: ['permission_overrides'] }],
  ])('refuses %s (422), storing nothing', async (_what, fields) => {
    const before = await count(knex()('platform_sync_profiles'));
    const refused = await root('POST', '/platform-sync/profiles', profile(fields));
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('validation_failed');
    expect(await count(knex()('platform_sync_profiles'))).toBe(before);
  });

  it('keeps names unique (409)', async () => {
    await newProfile({ name: 'twice' });
    const again = await root('POST', '/platform-sync/profiles', profile({ name: 'twice' }));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conflict');
  });

  it('answers 404 for an unknown or malformed profile id', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      expect((await root('GET', `/platform-sync/profiles/${id}`)).body.code).toBe('resource_not_found');
      expect((await root('PATCH', `/platform-sync/profiles/${id}`, { prune: true })).status).toBe(404);
      expect((await root('DELETE', `/platform-sync/profiles/${id}`)).status).toBe(404);
      expect((await root('GET', `/platform-sync/profiles/${id}/runs`)).status).toBe(404);
    }
    expect((await root('GET', `/platform-sync/runs/${UNKNOWN_ID}`)).status).toBe(404);
  });

  it('is for platform admins only: an organization admin is refused (403) on every route', async () => {
    const id = await newProfile();
    for (const [method, path, body] of [
      ['GET', '/platform-sync/profiles', undefined],
      ['POST', '/platform-sync/profiles', profile()],
      ['PATCH', `/platform-sync/profiles/${id}`, { prune: true }],
      ['GET', `/platform-sync/profiles/${id}/runs`, undefined],
      ['POST', `/platform-sync/profiles/${id}/destructive-authorizations`, { reason: 'cleanup' }],
    ] as const) {
      const refused = await call(world, 'alice', method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.code).toBe('forbidden');
    }
  });

  it('lists no runs for a new profile', async () => {
    const id = await newProfile();
    const runs = await root('GET', `/platform-sync/profiles/${id}/runs?kind=apply`);
    expect(runs.status).toBe(200);
    expect(runs.body).toMatchObject({ items: [], total: 0 });
  });
});

describe('destructive authorizations', () => {
  it('grants with a reason and a bounded life, lists, revokes once, each audited', async () => {
    const id = await newProfile();
    const base = `/platform-sync/profiles/${id}/destructive-authorizations`;
    const granted = await root('POST', base, { reason: 'remove retired variables', expires_in_seconds: 600 });
    expect(granted.status).toBe(201);
    expect(granted.body).toMatchObject({ profile_id: id, plan_id: null, state: 'active', granted_by: 'sub-root', use_count: 0 });
    expect(Date.parse(granted.body.expires_at) - Date.parse(granted.body.granted_at)).toBe(600_000);
    expect(await audits('platform_sync.authorization_granted', 'platform_sync_authorization')).toBeGreaterThan(0);

    const active = await root('GET', `${base}?state=active`);
    expect(active.body.total).toBe(1);

    const revoked = await root('POST', `${base}/${granted.body.id}/revoke`, { reason: 'changed my mind' });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ state: 'revoked', revoked_by: 'sub-root', revoke_reason: 'changed my mind' });
    expect(await audits('platform_sync.authorization_revoked', 'platform_sync_authorization')).toBeGreaterThan(0);
    expect((await root('POST', `${base}/${granted.body.id}/revoke`, {})).body.code).toBe('conflict');
    expect((await root('GET', `${base}?state=revoked`)).body.total).toBe(1);
    expect((await root('GET', `${base}?state=active`)).body.total).toBe(0);
  });

  it('expires: an authorization past its life lists as expired', async () => {
    const id = await newProfile();
    const base = `/platform-sync/profiles/${id}/destructive-authorizations`;
    expect((await root('POST', base, { reason: 'short', expires_in_seconds: 60 })).status).toBe(201);
    skewMs = 61_000;
    try {
      const listed = await root('GET', base);
      expect(listed.body.items[0].state).toBe('expired');
      expect((await root('GET', `${base}?state=expired`)).body.total).toBe(1);
    } finally {
      skewMs = 0;
    }
  });

  it.each([
    ['no reason', {}],
    ['a blank reason', { reason: '  ' }],
    ['a life beyond a day', { reason: 'x', expires_in_seconds: 86_401 }],
    ['a life under a minute', { reason: 'x', expires_in_seconds: 10 }],
    ['a plan of no profile', { reason: 'x', plan_id: UNKNOWN_ID }],
  ])('refuses %s (422)', async (_what, body) => {
    const id = await newProfile();
    const refused = await root('POST', `/platform-sync/profiles/${id}/destructive-authorizations`, body);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('validation_failed');
  });

  it('answers 404 for an unknown profile or an authorization of another profile', async () => {
    expect((await root('POST', `/platform-sync/profiles/${UNKNOWN_ID}/destructive-authorizations`, { reason: 'x' })).status).toBe(404);
    const mine = await newProfile();
    const other = await newProfile();
    const granted = await root('POST', `/platform-sync/profiles/${other}/destructive-authorizations`, { reason: 'x' });
    const crossed = await root('POST', `/platform-sync/profiles/${mine}/destructive-authorizations/${granted.body.id}/revoke`, {});
    expect(crossed.status).toBe(404);
  });
});
