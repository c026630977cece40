import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRepo } from '../src/daemon/audit/audit-repo.js';
import { AuditWriter } from '../src/daemon/audit/audit-writer.js';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

let idp: DevIdp;
let daemon: TestDaemon;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_TRUST_PROXY_HEADERS: 'true' });
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

const entries = () => daemon.services.db.knex('audit_logs').orderBy('ts').select();

describe('audit entries of refusals', () => {
  it('403: authz.denied with the route pattern, the effective policy, the actor and the request id', async () => {
    await daemon.services.overrides.setAction(
      'site:view',
      'operator',
      { sub: 'x', username: 'x', email: '', realmRoles: ['admin'], clientRoles: [], groups: [], isServiceAccount: false },
      undefined,
    );
    const token = await idp.mintAccessToken({ sub: 'sub-pat', username: 'pat', realmRoles: ['viewer'] });
    const response = await fetch(`${daemon.url}/settings/plugins`, {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.7', 'user-agent': 'probe/1' },
    });
    expect(response.status).toBe(403);
    const { request_id } = (await response.json()) as { request_id: string };
    const entry = (await entries()).find((e) => e.event_type === 'authz.denied' && e.details_json.request_id === request_id);
    expect(entry).toMatchObject({
      actor_sub: 'sub-pat',
      actor_username: 'pat',
      resource_type: 'route',
      resource_id: 'GET /settings/plugins',
      action: 'plugin:view',
      outcome: 'denied',
      client_ip: '203.0.113.7',
      user_agent: 'probe/1',
    });
    expect(entry.details_json).toMatchObject({ policy: 'operator', auth_method: 'jwt', route: 'GET /settings/plugins' });
  });

  it('records the pattern, never the concrete path, and the policy in effect after overrides', async () => {
    await daemon.services.overrides.setAction(
      'device:view',
      'admin',
      { sub: 'x', username: 'x', email: '', realmRoles: ['admin'], clientRoles: [], groups: [], isServiceAccount: false },
      undefined,
    );
    const token = await idp.mintAccessToken({ sub: 'sub-q', username: 'q', realmRoles: ['viewer'] });
    const response = await fetch(`${daemon.url}/devices/dev-42`, { headers: { authorization: `Bearer ${token}` } });
    const { request_id } = (await response.json()) as { request_id: string };
    const entry = (await entries()).find((e) => e.event_type === 'authz.denied' && e.details_json.request_id === request_id);
    expect(entry.resource_id).toBe('GET /devices/{device_id}');
    expect(JSON.stringify(entry)).not.toContain('dev-42');
    expect(entry.details_json.policy).toBe('admin');
  });

  it('writes nothing for a 401 that names nobody', async () => {
    const before = (await entries()).length;
    const responses = await Promise.all([
      fetch(`${daemon.url}/runs`),
      fetch(`${daemon.url}/runs`, { headers: { authorization: 'Bearer not.a.jwt' } }),
      fetch(`${daemon.url}/runs`, { headers: { authorization: `Bearer svc_pat_${'B'.repeat(43)}` } }),
      fetch(`${daemon.url}/internal/schedules/due`, { headers: { 'x-internal-token': 'wrong' } }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    expect((await entries()).length).toBe(before);
  });

  it('masks the address of an anonymous caller of a public route', async () => {
    const writer = new AuditWriter(new AuditRepo(daemon.services.db.knex));
    const id = await writer.record(
      { requestId: 'r', route: 'POST /hooks/{path_token}', clientIp: '198.51.100.77', userAgent: undefined, authMethod: 'public' },
      { eventType: 'probe' },
    );
    const row = await daemon.services.db.knex('audit_logs').where({ id }).first();
    expect(row.client_ip).toBe('198.51.100.0');
  });
});
