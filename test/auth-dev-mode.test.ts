import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon({ SERVICE_AUTH_DISABLED: 'true' });
});
afterAll(() => daemon?.close());

describe('development mode (authentication disabled)', () => {
  it('gives every request the mock principal of the specification', async () => {
    const response = await fetch(`${daemon.url}/auth/me`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      sub: 'dev-user',
      username: 'dev',
      realm_roles: ['admin', 'operator', 'auditor'],
      client_roles: ['admin'],
      groups: [],
      is_service_account: false,
      auth_method: 'dev_bypass',
    });
  });

  it('ignores whatever credential is sent', async () => {
    const response = await fetch(`${daemon.url}/auth/me`, { headers: { authorization: 'Bearer not-a-token' } });
    expect(((await response.json()) as { sub: string }).sub).toBe('dev-user');
  });

  it('answers 400 to ticket issuance', async () => {
    const response = await fetch(`${daemon.url}/auth/bff/ticket`, { method: 'POST' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('tickets_unavailable');
  });

  it('provisions the mock user', async () => {
    await fetch(`${daemon.url}/auth/me`);
    const user = await daemon.services.db.knex('users').where({ sub: 'dev-user' }).first();
    expect(user).toMatchObject({ username: 'dev' });
  });

  it('says so in /auth/config', async () => {
    const body = (await (await fetch(`${daemon.url}/auth/config`)).json()) as { auth_enabled: boolean };
    expect(body.auth_enabled).toBe(false);
  });
});
