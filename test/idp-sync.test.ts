import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg } from './helpers/seed.js';

let idp: DevIdp;
let authoritative: TestDaemon;
let additive: TestDaemon;
let noAutoJoin: TestDaemon;
const orgs: Record<string, string> = {};

const SYNC = { SERVICE_ORG_IDP_SYNC: 'true' };

beforeAll(async () => {
  idp = await startDevIdp();
  [authoritative, additive, noAutoJoin] = await Promise.all([
    startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, ...SYNC }),
    startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, ...SYNC, SERVICE_ORG_IDP_SYNC_AUTHORITATIVE: 'false' }),
    startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' }),
  ]);
  for (const daemon of [authoritative, additive]) {
    const knex = daemon.services.db.knex;
    for (const slug of ['net', 'sec', 'ops']) orgs[`${slug}`] = await seedOrg(knex, slug);
    const id = (slug: string) =>
      knex('organizations')
        .where({ slug })
        .first('id')
        .then((r: { id: string }) => r.id);
    await knex('org_idp_mappings').insert([
      { org_id: await id('net'), claim: 'groups', value: '/network', role: 'viewer' },
      { org_id: await id('net'), claim: 'groups', value: '/network/admins', role: 'admin' },
      { org_id: await id('sec'), claim: 'groups', value: 'security', role: 'operator' },
      { org_id: await id('sec'), claim: 'groups', value: '/security', role: 'auditor' },
      { org_id: await id('ops'), claim: 'groups', value: '/ops', role: 'operator', is_active: false },
    ]);
    // Seeded behind the API's back (no NOTIFY): reload the index as the periodic backstop would.
    await daemon.services.mappingIndex.refresh();
  }
});
afterAll(async () => {
  await Promise.all([authoritative?.close(), additive?.close(), noAutoJoin?.close()]);
  await idp?.stop();
});

/** A new login: a new token (a new session) carrying these groups, and its first request. */
async function login(daemon: TestDaemon, sub: string, groups: string[] | undefined, extra: Record<string, unknown> = {}): Promise<string> {
  const token = await idp.mintAccessToken({ sub, username: sub, realmRoles: [], ...(groups ? { groups } : { omit: ['groups'] }), extra });
  expect((await fetch(`${daemon.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  return token;
}

/** A platform admin's headers, for the mappings and organizations APIs. */
async function asAdmin(orgRef?: string): Promise<Record<string, string>> {
  const token = await idp.mintAccessToken({ sub: 'sync-admin', username: 'sync-admin', realmRoles: ['admin'] });
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(orgRef ? { 'x-org-id': orgRef } : {}) };
}

async function memberships(knex: Knex, sub: string): Promise<Record<string, { role: string; source: string }>> {
  const rows = await knex('org_memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .join('organizations as o', 'o.id', 'm.org_id')
    .where('u.sub', sub)
    .select('o.slug', 'm.role', 'm.source');
  return Object.fromEntries(rows.map((r: { slug: string; role: string; source: string }) => [r.slug, { role: r.role, source: r.source }]));
}

async function addManual(knex: Knex, sub: string, slug: string, role: string): Promise<void> {
  const user = await knex('users').where({ sub }).first('id');
  const org = await knex('organizations').where({ slug }).first('id');
  await knex('org_memberships').insert({ user_id: user.id, org_id: org.id, role, source: 'manual' });
}

describe('IdP group sync at login', () => {
  it('creates an idp membership for a matching mapping, and upgrades it for a stronger one', async () => {
    const knex = authoritative.services.db.knex;
    await login(authoritative, 'u-a', ['/network']);
    expect((await memberships(knex, 'u-a')).net).toEqual({ role: 'viewer', source: 'idp' });
    await login(authoritative, 'u-a', ['/network', '/network/admins']);
    expect((await memberships(knex, 'u-a')).net).toEqual({ role: 'admin', source: 'idp' });
    const audit = await knex('audit_logs').where({ event_type: 'org_member.idp_upgraded', actor_sub: 'u-a' }).first();
    expect(audit.details_json.mapping).toMatchObject({ value: '/network/admins', role: 'admin' });
    expect(audit.org_id).toBe(
      await knex('organizations')
        .where({ slug: 'net' })
        .first('id')
        .then((r: { id: string }) => r.id),
    );
  });

  it('gives the strongest role when two mappings of one organization match', async () => {
    await login(authoritative, 'u-b', ['/network/admins', '/network']);
    expect((await memberships(authoritative.services.db.knex, 'u-b')).net).toEqual({ role: 'admin', source: 'idp' });
  });

  it('leaves manual memberships exactly as they are, weaker or stronger', async () => {
    const knex = authoritative.services.db.knex;
    await login(authoritative, 'u-c', []);
    await addManual(knex, 'u-c', 'net', 'operator');
    await addManual(knex, 'u-c', 'sec', 'viewer');
    await login(authoritative, 'u-c', ['/network', 'security']);
    const after = await memberships(knex, 'u-c');
    expect(after.net).toEqual({ role: 'operator', source: 'manual' });
    expect(after.sec).toEqual({ role: 'viewer', source: 'manual' });
    await login(authoritative, 'u-c', []);
    expect((await memberships(knex, 'u-c')).net).toEqual({ role: 'operator', source: 'manual' });
  });

  it('removes an idp membership the claims no longer justify, in authoritative mode only', async () => {
    await login(authoritative, 'u-d', ['/network']);
    await login(authoritative, 'u-d', []);
    expect((await memberships(authoritative.services.db.knex, 'u-d')).net).toBeUndefined();

    await login(additive, 'u-d', ['/network']);
    await login(additive, 'u-d', []);
    expect((await memberships(additive.services.db.knex, 'u-d')).net).toEqual({ role: 'viewer', source: 'idp' });
  });

  it('ignores inactive mappings', async () => {
    await login(authoritative, 'u-e', ['/ops']);
    expect((await memberships(authoritative.services.db.knex, 'u-e')).ops).toBeUndefined();
  });

  it('matches full-path and bare-name values each only to their own mapping', async () => {
    const knex = authoritative.services.db.knex;
    await login(authoritative, 'u-f', ['security']);
    expect((await memberships(knex, 'u-f')).sec).toEqual({ role: 'operator', source: 'idp' });
    await login(authoritative, 'u-g', ['/security']);
    expect((await memberships(knex, 'u-g')).sec).toEqual({ role: 'auditor', source: 'idp' });
  });

  it('applies a mapping edit at the next login, not within a session', async () => {
    const knex = authoritative.services.db.knex;
    const token = await login(authoritative, 'u-h', ['/network']);
    const { id } = await knex('org_idp_mappings').where({ value: '/network' }).first('id');
    const setRole = async (role: string) =>
      expect(
        (
          await fetch(`${authoritative.url}/orgs/net/idp-mappings/${id}`, {
            method: 'PATCH',
            headers: await asAdmin('net'),
            body: JSON.stringify({ role }),
          })
        ).status,
      ).toBe(200);
    await setRole('operator');
    try {
      expect((await fetch(`${authoritative.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect((await memberships(knex, 'u-h')).net).toEqual({ role: 'viewer', source: 'idp' });
      await login(authoritative, 'u-h', ['/network']);
      expect((await memberships(knex, 'u-h')).net).toEqual({ role: 'operator', source: 'idp' });
    } finally {
      await setRole('viewer');
    }
  });

  it('uses a mapping created through the API at the very next login on the same instance', async () => {
    const created = await fetch(`${authoritative.url}/orgs/sec/idp-mappings`, {
      method: 'POST',
      headers: await asAdmin('sec'),
      body: JSON.stringify({ claim: 'groups', value: '/fresh', role: 'approver' }),
    });
    expect(created.status).toBe(201);
    // No wait: the periodic reload is 30 s away, so only the reload after the write can make this pass.
    await login(authoritative, 'u-k', ['/fresh']);
    expect((await memberships(authoritative.services.db.knex, 'u-k')).sec).toEqual({ role: 'approver', source: 'idp' });
  });

  it('stops matching the mappings of a deactivated organization, and matches them again once reactivated', async () => {
    const knex = authoritative.services.db.knex;
    const send = async (method: string, path: string, body: unknown, orgRef?: string) =>
      (await fetch(`${authoritative.url}${path}`, { method, headers: await asAdmin(orgRef), body: JSON.stringify(body) })).status;
    expect(await send('POST', '/orgs', { slug: 'lab', name: 'Lab' })).toBe(201);
    expect(await send('POST', '/orgs/lab/idp-mappings', { claim: 'groups', value: '/lab', role: 'operator' }, 'lab')).toBe(201);
    await login(authoritative, 'u-l', ['/lab']);
    expect((await memberships(knex, 'u-l')).lab).toEqual({ role: 'operator', source: 'idp' });

    expect(await send('PATCH', '/orgs/lab', { is_active: false })).toBe(200);
    await login(authoritative, 'u-m', ['/lab']);
    expect((await memberships(knex, 'u-m')).lab).toBeUndefined();

    expect(await send('PATCH', '/orgs/lab', { is_active: true })).toBe(200);
    await login(authoritative, 'u-m', ['/lab']);
    expect((await memberships(knex, 'u-m')).lab).toEqual({ role: 'operator', source: 'idp' });
  });

  it('changes nothing, and says so, when the token lacks the group claim', async () => {
    const knex = authoritative.services.db.knex;
    await login(authoritative, 'u-i', ['/network']);
    await login(authoritative, 'u-i', undefined);
    expect((await memberships(knex, 'u-i')).net).toEqual({ role: 'viewer', source: 'idp' });
    expect(await knex('audit_logs').where({ event_type: 'org_sync.claim_missing', actor_sub: 'u-i' }).first()).toBeDefined();
  });

  it('answers a preview exactly as the next real login then behaves', async () => {
    const knex = authoritative.services.db.knex;
    await login(authoritative, 'u-j', ['/network']);
    await addManual(knex, 'u-j', 'ops', 'viewer');
    const groups = ['/network/admins', 'security'];
    const preview = await fetch(
      `${authoritative.url}/orgs/net/idp-mappings?preview_user=u-j&${groups.map((g) => `groups=${encodeURIComponent(g)}`).join('&')}`,
      { headers: await asAdmin() },
    );
    expect(preview.status).toBe(200);
    const { changes } = (await preview.json()) as { changes: { kind: string; org: { slug: string }; role: string }[] };
    await login(authoritative, 'u-j', groups);
    const after = await memberships(knex, 'u-j');
    for (const change of changes) {
      if (change.kind === 'remove') expect(after[change.org.slug]).toBeUndefined();
      else expect(after[change.org.slug]?.role, change.org.slug).toBe(change.role);
    }
    expect(changes.map((c) => `${c.kind}:${c.org.slug}`).sort()).toEqual(['add:sec', 'untouched:ops', 'upgrade:net']);
  });
});

describe('auto-join', () => {
  it('puts a user with no membership in the default organization', async () => {
    await login(authoritative, 'u-new', []);
    expect((await memberships(authoritative.services.db.knex, 'u-new')).default).toEqual({ role: 'viewer', source: 'manual' });
  });

  it('does nothing when switched off', async () => {
    await login(noAutoJoin, 'u-alone', []);
    expect(await memberships(noAutoJoin.services.db.knex, 'u-alone')).toEqual({});
  });
});
