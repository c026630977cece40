import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEV_PRINCIPAL } from '../src/shared/auth/principal.js';
import {
  approveDeviceCode,
  authorizeInBrowser,
  DEV_AUTOMATION_CLIENT_SECRET,
  DEV_CLIENTS,
  DEV_USERS,
  startDevIdp,
  type DevIdp,
} from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedUser } from './helpers/seed.js';
import { SVC_BIN } from './helpers/cli.js';
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
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-config-'));
  return () => rm(configHome, { recursive: true, force: true });
});

const user = (name: string) => DEV_USERS.find((u) => u.username === name)!;
const credentialsPath = () => join(configHome, 'svc', 'credentials.json');
const readCredentials = async () =>
  JSON.parse(await readFile(credentialsPath(), 'utf8')) as { profiles: Record<string, Record<string, string | null>> };

interface Run {
  readonly child: ChildProcess;
  stderr(): string;
  readonly finished: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Runs the CLI from source with its own config directory and a minimal environment (no display: headless). */
function svc(args: string[], options: { env?: Record<string, string>; stdin?: string } = {}): Run {
  const child = spawn(process.execPath, [SVC_BIN, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: configHome, XDG_CONFIG_HOME: configHome, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin!.end(options.stdin ?? '');
  const finished = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, stderr: () => stderr, finished };
}

async function waitFor(run: Run, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(run.stderr());
    if (match) return match;
    if (Date.now() > deadline || run.child.exitCode !== null) throw new Error(`no ${pattern} on stderr:\n${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Device-grant login where the test plays the user at the provider. */
async function deviceLogin(username: string, extra: string[] = []): Promise<void> {
  const run = svc(['login', '--server', daemon.url, ...extra]);
  const [, uri] = await waitFor(run, /Verification URL: (\S+)/);
  const [, code] = await waitFor(run, /User code: (\S+)/);
  const u = user(username);
  expect(await approveDeviceCode(uri!, code!, { username: u.username, password: u.password })).toBe(true);
  const { code: exit, stderr } = await run.finished;
  expect(exit, stderr).toBe(0);
}

async function whoamiJson(extra: string[] = [], env: Record<string, string> = {}) {
  const { code, stdout, stderr } = await svc(['whoami', '--json', ...extra], { env }).finished;
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as { username: string; sub: string; auth_method: string };
}

describe('svc login', () => {
  it('uses the device grant on a headless host, and stores the credential 0600 in a 0700 directory', async () => {
    await deviceLogin('operator');
    expect((await stat(credentialsPath())).mode & 0o777).toBe(0o600);
    expect((await stat(join(configHome, 'svc'))).mode & 0o777).toBe(0o700);
    const stored = (await readCredentials()).profiles.default!;
    expect(stored).toMatchObject({
      server: daemon.url,
      issuer: idp.issuer,
      client_id: DEV_CLIENTS.cli,
      method: 'device',
      username: 'operator',
    });
    expect(stored.refresh_token).toEqual(expect.any(String));
    expect(await whoamiJson()).toMatchObject({ username: 'operator', sub: user('operator').sub, auth_method: 'jwt' });
  });

  it('uses authorization code + PKCE on a loopback redirect when a display is available', async () => {
    const run = svc(['login', '--server', daemon.url, '--no-browser'], { env: { DISPLAY: ':0' } });
    const [, url] = await waitFor(run, /Authorization URL: (\S+)/);
    const authorization = new URL(url!);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const approver = user('approver');
    const callback = await authorizeInBrowser(url!, { username: approver.username, password: approver.password });
    expect(callback?.searchParams.get('code')).toEqual(expect.any(String));
    expect((await fetch(callback!)).status).toBe(200);
    expect((await run.finished).code).toBe(0);
    expect((await readCredentials()).profiles.default).toMatchObject({ method: 'pkce', username: 'approver' });
    expect(await whoamiJson()).toMatchObject({ username: 'approver' });
  });

  it('logs in with client credentials and never stores the secret', async () => {
    const { code, stderr } = await svc([
      'login',
      '--server',
      daemon.url,
      '--client-credentials',
      '--client-id',
      DEV_CLIENTS.automation,
      '--client-secret',
      DEV_AUTOMATION_CLIENT_SECRET,
    ]).finished;
    expect(code, stderr).toBe(0);
    const text = await readFile(credentialsPath(), 'utf8');
    expect(text).not.toContain(DEV_AUTOMATION_CLIENT_SECRET);
    expect(JSON.parse(text).profiles.default).toMatchObject({ method: 'client_credentials', client_id: DEV_CLIENTS.automation });
    expect((await stat(credentialsPath())).mode & 0o777).toBe(0o600);
    expect(await whoamiJson()).toMatchObject({ username: `service-account-${DEV_CLIENTS.automation}` });
  });

  it('renews an expired client-credentials token only when the secret is in the environment', async () => {
    const env = { SVC_CLIENT_ID: DEV_CLIENTS.automation, SVC_CLIENT_SECRET: DEV_AUTOMATION_CLIENT_SECRET };
    expect((await svc(['login', '--server', daemon.url, '--client-credentials'], { env }).finished).code).toBe(0);
    await expireStoredToken();
    const refused = await svc(['whoami', '--json']).finished;
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(`svc login --server ${daemon.url} --client-credentials --client-id ${DEV_CLIENTS.automation}`);
    expect(await whoamiJson([], env)).toMatchObject({ username: `service-account-${DEV_CLIENTS.automation}` });
    expect(await readFile(credentialsPath(), 'utf8')).not.toContain(DEV_AUTOMATION_CLIENT_SECRET);
  });

  it('reads a personal access token from stdin with --with-token', async () => {
    await seedUser(daemon.services.db.knex, { sub: 'sub-cli-pat', username: 'cli-pat-user' }, [{ orgSlug: 'default', role: 'viewer' }]);
    const pat = await daemon.services.pats.create(
      { name: 'cli', username: 'cli-pat-user', org: 'default', expiresAt: null },
      DEV_PRINCIPAL,
    );
    const { code, stderr } = await svc(['login', '--server', daemon.url, '--with-token'], { stdin: `${pat.token}\n` }).finished;
    expect(code, stderr).toBe(0);
    expect((await readCredentials()).profiles.default).toMatchObject({ method: 'token', access_token: pat.token, expires_at: null });
    expect(await whoamiJson()).toMatchObject({ username: 'cli-pat-user', auth_method: 'pat' });
  });

  it('refuses a token the server does not accept, storing nothing', async () => {
    const { code } = await svc(['login', '--server', daemon.url, '--with-token'], { stdin: `svc_pat_${'A'.repeat(43)}\n` }).finished;
    expect(code).toBe(4);
    await expect(stat(credentialsPath())).rejects.toThrow();
  });

  it('cancels cleanly on Ctrl-C with exit 130', async () => {
    const run = svc(['login', '--server', daemon.url, '--device']);
    await waitFor(run, /User code: (\S+)/);
    run.child.kill('SIGINT');
    expect((await run.finished).code).toBe(130);
    await expect(stat(credentialsPath())).rejects.toThrow();
  });

  it('gives up after --timeout', async () => {
    const { code } = await svc(['login', '--server', daemon.url, '--device', '--timeout', '1']).finished;
    expect(code).toBe(1);
  });

  it('refuses to prompt for a server without a terminal, naming the flag', async () => {
    const { code, stderr } = await svc(['login']).finished;
    expect(code).toBe(2);
    expect(stderr).toContain('--server');
  });

  it('refuses contradictory flags as a usage error', async () => {
    expect((await svc(['login', '--server', daemon.url, '--with-token', '--client-credentials']).finished).code).toBe(2);
    expect((await svc(['login', '--server', daemon.url, '--client-credentials']).finished).code).toBe(2);
  });
});

async function expireStoredToken(patch: Record<string, string> = {}) {
  const file = await readCredentials();
  Object.assign(file.profiles.default!, { expires_at: new Date(Date.now() - 60_000).toISOString() }, patch);
  await writeFile(credentialsPath(), JSON.stringify(file));
}

describe('refresh and logout', () => {
  it('refreshes an expired access token with the refresh token', async () => {
    await deviceLogin('viewer');
    const before = (await readCredentials()).profiles.default!;
    await expireStoredToken();
    const { code, stdout } = await svc(['auth', 'token']).finished;
    expect(code).toBe(0);
    const after = (await readCredentials()).profiles.default!;
    expect(stdout.trim()).toBe(after.access_token);
    expect(after.access_token).not.toBe(before.access_token);
    expect(Date.parse(after.expires_at!)).toBeGreaterThan(Date.now());
    expect(await whoamiJson()).toMatchObject({ username: 'viewer' });
  });

  it('refreshes once when several processes find the token expired together', async () => {
    await deviceLogin('viewer');
    await expireStoredToken();
    const runs = await Promise.all([1, 2, 3].map(() => svc(['auth', 'token']).finished));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(new Set(runs.map((r) => r.stdout.trim())).size).toBe(1);
    await expect(stat(`${credentialsPath()}.lock`)).rejects.toThrow();
  });

  it('takes over a lock left behind by a process that is gone', async () => {
    await deviceLogin('viewer');
    await expireStoredToken();
    await writeFile(`${credentialsPath()}.lock`, '999999\n2020-01-01T00:00:00.000Z\n');
    const { code, stderr } = await svc(['auth', 'token']).finished;
    expect(code, stderr).toBe(0);
    expect(Date.parse((await readCredentials()).profiles.default!.expires_at!)).toBeGreaterThan(Date.now());
  });

  it('exits 4 with the exact login command when the refresh fails', async () => {
    await deviceLogin('viewer', ['--profile', 'ops']);
    const file = await readCredentials();
    Object.assign(file.profiles.ops!, { expires_at: new Date(Date.now() - 60_000).toISOString(), refresh_token: 'not-a-refresh-token' });
    await writeFile(credentialsPath(), JSON.stringify(file));
    const { code, stderr } = await svc(['whoami', '--profile', 'ops']).finished;
    expect(code).toBe(4);
    expect(stderr).toContain(`svc login --server ${daemon.url} --profile ops`);
  });

  it('logs out: the profile is forgotten and commands then need a login', async () => {
    await deviceLogin('viewer');
    expect((await svc(['logout']).finished).code).toBe(0);
    expect((await readCredentials()).profiles).toEqual({});
    const { code, stderr } = await svc(['whoami']).finished;
    expect(code).toBe(4);
    expect(stderr).toContain('svc login');
  });
});
