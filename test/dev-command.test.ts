import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyTemplate, type DatabaseLocation } from './helpers/database.js';
import { collect, spawnTs, waitForListening } from './helpers/spawn.js';

let location: DatabaseLocation;
beforeAll(async () => {
  location = await copyTemplate();
});
afterAll(() => location?.drop());

describe('svcd dev', () => {
  it('serves with authentication on beside an embedded provider, and says how to sign in', async () => {
    const child = spawnTs('src/daemon/main.ts', ['dev'], { ...location.env, SERVICE_PORT: '0', SERVICE_DEV_IDP_PORT: '0' });
    const { output, finished } = collect(child);
    try {
      const url = await waitForListening(child);
      let issuer: string | undefined;
      for (let i = 0; i < 100 && !issuer; i += 1) {
        issuer = /Embedded OpenID provider \(development only\): (\S+)/.exec(output().stderr)?.[1];
        if (!issuer) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(issuer).toBeDefined();
      expect(output().stderr).toContain('operator-password');

      expect((await fetch(`${url}/auth/me`)).status).toBe(401);
      const token = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from('service-automation:service-automation-dev-secret').toString('base64')}`,
        },
        body: 'grant_type=client_credentials',
      });
      const { access_token } = (await token.json()) as { access_token: string };
      const me = await fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${access_token}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { auth_method: string }).auth_method).toBe('jwt');
    } finally {
      child.kill('SIGTERM');
      expect((await finished).code).toBe(0);
    }
  });

  it('refuses to run in production', async () => {
    const { code } = await collect(
      spawnTs('src/daemon/main.ts', ['dev'], {
        ...location.env,
        SERVICE_ENVIRONMENT: 'production',
        SERVICE_IDP_ISSUER: 'https://idp.example.test/realms/svc',
        SERVICE_INTERNAL_API_TOKEN: 'x'.repeat(40),
      }),
    ).finished;
    expect(code).not.toBe(0);
  });
});
