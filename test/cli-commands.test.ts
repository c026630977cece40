import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_AUTOMATION_CLIENT_SECRET, DEV_CLIENTS, DEV_SERVICE_ACCOUNT, startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { runSvc } from './helpers/cli.js';

let idp: DevIdp;
let daemon: TestDaemon;
let configHome: string;

/** Stored credential of the `service-automation` client: an operator, not an admin. */
beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer });
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-config-'));
  const login = await svc([
    'login',
    '--server',
    daemon.url,
    '--client-credentials',
    '--client-id',
    DEV_CLIENTS.automation,
    '--client-secret',
    DEV_AUTOMATION_CLIENT_SECRET,
  ]);
  expect(login.code, login.stderr).toBe(0);
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(args: string[], env: Record<string, string> = {}, stdin = '') {
  return runSvc(args, { configHome, env, stdin });
}

const adminToken = () => idp.mintAccessToken({ expiresInSeconds: 300 });

describe('svc whoami', () => {
  it('prints the caller for people, on stdout, without colour when not a terminal', async () => {
    const { code, stdout } = await svc(['whoami']);
    expect(code).toBe(0);
    expect(stdout).toContain(DEV_SERVICE_ACCOUNT.username);
    expect(stdout).not.toContain('\u001b[');
  });

  it('prints GET /auth/me as JSON with --json', async () => {
    const { code, stdout } = await svc(['whoami', '--json']);
    expect(code).toBe(0);
    const me = JSON.parse(stdout) as Record<string, unknown>;
    expect(me).toMatchObject({
      sub: DEV_SERVICE_ACCOUNT.sub,
      username: DEV_SERVICE_ACCOUNT.username,
      auth_method: 'jwt',
      is_service_account: true,
    });
    expect(me).toHaveProperty('realm_roles');
    expect(me).toHaveProperty('memberships');
  });
});

describe('svc auth status and token', () => {
  it('says where the stored credential lives, whose it is and when it expires', async () => {
    const { code, stdout } = await svc(['auth', 'status', '--json']);
    expect(code).toBe(0);
    const status = JSON.parse(stdout) as Record<string, unknown>;
    expect(status).toMatchObject({
      profile: 'default',
      server: daemon.url,
      logged_in: true,
      credential_source: 'file',
      credential_location: join(configHome, 'svc', 'credentials.json'),
      method: 'client_credentials',
      issuer: idp.issuer,
      client_id: DEV_CLIENTS.automation,
      user: { sub: DEV_SERVICE_ACCOUNT.sub, username: DEV_SERVICE_ACCOUNT.username },
      error: null,
    });
    expect(Date.parse(status.expires_at as string)).toBeGreaterThan(Date.now());
  });

  it('lets SVC_TOKEN win over the stored credential, and says so', async () => {
    const token = await adminToken();
    const { code, stdout } = await svc(['auth', 'status', '--json'], { SVC_TOKEN: token });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ credential_source: 'env', credential_location: 'SVC_TOKEN', user: { username: 'admin' } });
    expect((await svc(['auth', 'token'], { SVC_TOKEN: token })).stdout.trim()).toBe(token);
  });

  it('exits 4 when the server refuses SVC_TOKEN', async () => {
    const { code, stdout } = await svc(['auth', 'status', '--json'], { SVC_TOKEN: 'nope' });
    expect(code).toBe(4);
    expect(JSON.parse(stdout)).toMatchObject({ logged_in: false, error: 'invalid_token' });
  });

  it('prints the stored access token', async () => {
    const stored = JSON.parse(await readFile(join(configHome, 'svc', 'credentials.json'), 'utf8')) as {
      profiles: { default: { access_token: string } };
    };
    const { code, stdout } = await svc(['auth', 'token']);
    expect(code).toBe(0);
    expect(stdout).toBe(`${stored.profiles.default.access_token}\n`);
  });

  it('exits 4 naming the login command for a profile that is not logged in', async () => {
    const { code, stdout, stderr } = await svc(['auth', 'token', '--profile', 'nobody', '--server', daemon.url]);
    expect(code).toBe(4);
    expect(stdout).toBe('');
    expect(stderr).toContain(`svc login --server ${daemon.url} --profile nobody`);
  });
});

describe('svc api', () => {
  it('prints the JSON body of a call on stdout', async () => {
    const { code, stdout } = await svc(['api', 'GET', '/auth/me']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ username: DEV_SERVICE_ACCOUNT.username });
  });

  it('sends --org as X-Org-Id', async () => {
    const { code, stdout } = await svc(['--org', 'default', 'api', 'GET', '/auth/capabilities']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ organization: 'default' });
  });

  it('exits 5 on a 403, with the code and request id on stderr', async () => {
    const { code, stdout, stderr } = await svc(['api', 'GET', '/api-tokens', '-H', 'X-Request-Id:cli-test-forbidden-1']);
    expect(code).toBe(5);
    expect(stdout).toBe('');
    expect(stderr).toContain('forbidden');
    expect(stderr).toContain('cli-test-forbidden-1');
  });

  it('exits 3 on a 404', async () => {
    const { code, stderr } = await svc(['api', 'DELETE', '/api-tokens/00000000-0000-4000-8000-000000000000'], {
      SVC_TOKEN: await adminToken(),
    });
    expect(code, stderr).toBe(3);
    expect(stderr).toMatch(/request id: \S+/);
  });

  it('sends fields as a JSON body, and reads a body from stdin with --input -', async () => {
    const token = await adminToken();
    const created = await svc(['api', 'POST', '/api-tokens', '-f', 'name=cli-made', '-f', 'username=admin', '-F', 'expires_in_days=7'], {
      SVC_TOKEN: token,
    });
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'cli-made', token: expect.stringMatching(/^svc_pat_/) });
    const listed = await svc(['api', 'GET', '/api-tokens', '-F', 'include_revoked=true'], { SVC_TOKEN: token });
    expect(listed.code, listed.stderr).toBe(0);
    const made = JSON.parse(created.stdout) as { id: string };
    const { items } = JSON.parse(listed.stdout) as { items: Record<string, unknown>[] };
    expect(items.find((t) => t.id === made.id)).toMatchObject({ name: 'cli-made', user: { username: 'admin' }, revoked_at: null });
    expect(items.every((t) => !('token' in t))).toBe(true);
    const viaStdin = await svc(['api', 'POST', '/api-tokens', '--input', '-'], { SVC_TOKEN: token }, '{"name":""}');
    expect(viaStdin.code).toBe(1);
    expect(viaStdin.stderr).toContain('validation_failed');
  });

  it('exits 2 on a usage error', async () => {
    expect((await svc(['api', 'GET'])).code).toBe(2);
    expect((await svc(['api', 'FETCH', '/auth/me'])).code).toBe(2);
    expect((await svc(['no-such-command'])).code).toBe(2);
  });
});
