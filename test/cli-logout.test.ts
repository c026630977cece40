import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CredentialStore, type StoredProfile } from '../src/cli/auth/store.js';
import {
  approveDeviceCode,
  DEV_AUTOMATION_CLIENT_SECRET,
  DEV_CLIENTS,
  DEV_USERS,
  startDevIdp,
  type DevIdp,
} from '../src/daemon/dev-idp/index.js';
import { runSvc, SVC_BIN } from './helpers/cli.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { REPO_ROOT } from './helpers/spawn.js';

let idp: DevIdp;
let daemon: TestDaemon;
let configHome: string;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer });
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});
beforeEach(async () => {
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-logout-'));
  return () => rm(configHome, { recursive: true, force: true });
});

const svc = (args: string[], env: Record<string, string> = {}) => runSvc(args, { configHome, env });
const store = () => new CredentialStore({ HOME: configHome, XDG_CONFIG_HOME: configHome });
const profiles = async () =>
  (JSON.parse(await readFile(join(configHome, 'svc', 'credentials.json'), 'utf8')) as { profiles: Record<string, unknown> }).profiles;

/** `svc login --device` (headless), the test playing the user at the provider; answers the stored profile. */
async function deviceLogin(username: string): Promise<StoredProfile> {
  const child = spawn(process.execPath, [SVC_BIN, 'login', '--server', daemon.url, '--device'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: configHome, XDG_CONFIG_HOME: configHome },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const deadline = Date.now() + 20_000;
  let match: RegExpExecArray | null = null;
  while (!(match = /Verification URL: (\S+)\nUser code: (\S+)/.exec(stderr))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no device code on stderr:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const user = DEV_USERS.find((u) => u.username === username)!;
  expect(await approveDeviceCode(match[1]!, match[2]!, { username: user.username, password: user.password })).toBe(true);
  expect(await exited, stderr).toBe(0);
  return (await store().get('default'))!;
}

/** A refresh at the provider's token endpoint, as any holder of the refresh token could make it. */
async function refreshAtProvider(refreshToken: string): Promise<{ status: number; body: { error?: string; access_token?: string } }> {
  const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as { token_endpoint: string };
  const response = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: DEV_CLIENTS.cli }),
  });
  return { status: response.status, body: (await response.json()) as { error?: string; access_token?: string } };
}

/** An identity provider's discovery document, with or without a revocation endpoint (which answers 500). */
async function fakeProvider(options: { revocation: boolean }): Promise<{ issuer: string; revocations: () => number; server: Server }> {
  let revocations = 0;
  const server = createServer((req, res) => {
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === '/.well-known/openid-configuration') {
      const metadata = {
        issuer,
        token_endpoint: `${issuer}/token`,
        authorization_endpoint: `${issuer}/auth`,
        jwks_uri: `${issuer}/jwks`,
        ...(options.revocation ? { revocation_endpoint: `${issuer}/revoke` } : {}),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metadata));
      return;
    }
    if (req.url === '/revoke') revocations += 1;
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"server_error"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, revocations: () => revocations, server };
}

async function storeSession(issuer: string): Promise<void> {
  await store().put('default', {
    server: daemon.url,
    issuer,
    client_id: DEV_CLIENTS.cli,
    method: 'device',
    access_token: 'a',
    refresh_token: 'r',
    expires_at: new Date(Date.now() + 300_000).toISOString(),
    token_type: 'Bearer',
    scope: null,
    username: 'viewer',
  });
}

describe('svc logout', () => {
  it('revokes the refresh token at the provider before forgetting it: the old refresh token no longer refreshes', async () => {
    const { refresh_token: refreshToken } = await deviceLogin('viewer');
    const { code, stderr } = await svc(['logout']);
    expect(code, stderr).toBe(0);
    expect(stderr).not.toContain('warning');
    expect(await profiles()).toEqual({});
    const refresh = await refreshAtProvider(refreshToken!);
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('(control) a refresh token that was not logged out still refreshes at the same endpoint', async () => {
    const { refresh_token: refreshToken } = await deviceLogin('viewer');
    const refresh = await refreshAtProvider(refreshToken!);
    expect(refresh.status).toBe(200);
    expect(refresh.body.access_token).toEqual(expect.any(String));
  });

  it('forgets the credential with a warning and exit 0 when the provider cannot be reached', async () => {
    const provider = await fakeProvider({ revocation: false });
    const { issuer } = provider;
    await new Promise((resolve) => provider.server.close(resolve));
    await storeSession(issuer);
    const { code, stderr } = await svc(['logout']);
    expect(code).toBe(0);
    expect(stderr).toContain('warning:');
    expect(await profiles()).toEqual({});
  });

  it('forgets the credential with a warning and exit 0 when the revocation endpoint fails', async () => {
    const provider = await fakeProvider({ revocation: true });
    try {
      await storeSession(provider.issuer);
      const { code, stderr } = await svc(['logout']);
      expect(code).toBe(0);
      expect(stderr).toContain('warning:');
      expect(provider.revocations()).toBe(1);
      expect(await profiles()).toEqual({});
    } finally {
      provider.server.close();
    }
  });

  it('forgets the credential with a warning when the provider has no revocation endpoint', async () => {
    const provider = await fakeProvider({ revocation: false });
    try {
      await storeSession(provider.issuer);
      const { code, stderr } = await svc(['logout']);
      expect(code).toBe(0);
      expect(stderr).toContain('warning:');
      expect(provider.revocations()).toBe(0);
      expect(await profiles()).toEqual({});
    } finally {
      provider.server.close();
    }
  });

  it('forgets a client-credentials login, which has no refresh token, without a warning', async () => {
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
    const { code, stderr } = await svc(['logout']);
    expect(code).toBe(0);
    expect(stderr).not.toContain('warning');
    expect(await profiles()).toEqual({});
  });

  it('is not an error for a profile that is not logged in', async () => {
    expect((await svc(['logout', '--profile', 'nobody'])).code).toBe(0);
  });
});
