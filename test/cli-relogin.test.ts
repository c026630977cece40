import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mayOfferRelogin, SessionExpiredError, withRelogin, type Relogin } from '../src/cli/auth/relogin.js';
import { activeCredential } from '../src/cli/auth/session.js';
import { CredentialStore, type StoredProfile } from '../src/cli/auth/store.js';
import { exitCodeOf } from '../src/cli/errors.js';
import { ApiClient } from '../src/cli/http/client.js';
import { askDefaultYes } from '../src/cli/runtime/ask.js';
import { createContext, type Context } from '../src/cli/runtime/context.js';
import type { IO } from '../src/cli/runtime/io.js';
import { approveDeviceCode, DEV_CLIENTS, DEV_USERS, startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { runSvc } from './helpers/cli.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

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
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-relogin-'));
  return () => rm(configHome, { recursive: true, force: true });
});

/** No DISPLAY: a headless host, so no browser is launched from the tests. */
const cliEnv = () => ({ HOME: configHome, XDG_CONFIG_HOME: configHome });

/** A device-grant credential whose access token has expired and whose refresh token the provider refuses. */
async function storeExpiredSession(profile = 'default', patch: Partial<StoredProfile> = {}): Promise<StoredProfile> {
  return new CredentialStore(cliEnv()).put(profile, {
    server: daemon.url,
    issuer: idp.issuer,
    client_id: DEV_CLIENTS.cli,
    method: 'device',
    access_token: 'expired-access-token',
    refresh_token: 'not-a-refresh-token',
    expires_at: new Date(Date.now() - 60_000).toISOString(),
    token_type: 'Bearer',
    scope: null,
    username: 'viewer',
    ...patch,
  });
}

interface Terminal {
  readonly ctx: Context;
  readonly stdin: PassThrough;
  stderr(): string;
}

/** A context whose streams the test holds, with the TTY flags it chooses. */
function terminal(options: { stdinIsTTY?: boolean; stderrIsTTY?: boolean; env?: Record<string, string>; profile?: string } = {}): Terminal {
  const stdin = new PassThrough();
  let stderr = '';
  const io: IO = {
    stdin: stdin as unknown as NodeJS.ReadStream,
    out: () => undefined,
    err: (text) => void (stderr += text),
    stdinIsTTY: options.stdinIsTTY ?? true,
    stdoutIsTTY: false,
    stderrIsTTY: options.stderrIsTTY ?? true,
    colorOut: false,
    colorErr: false,
  };
  const ctx = createContext(
    io,
    { ...cliEnv(), ...options.env },
    { profile: options.profile ?? 'default', server: undefined, org: undefined },
    new AbortController().signal,
  );
  return { ctx, stdin, stderr: () => stderr };
}

/** A fake login that stores a valid token for the admin, and records how it was asked to log in. */
function fakeRelogin(answer: boolean, options: { loginWorks?: boolean } = {}) {
  const calls = { questions: [] as string[], logins: [] as { profile: string; mode: string; device: boolean }[] };
  const relogin: Relogin = {
    ask: async (_io, question) => {
      calls.questions.push(question);
      return answer;
    },
    login: async (ctx, expired, loginOptions) => {
      calls.logins.push({ profile: expired.profile, mode: loginOptions.mode, device: loginOptions.device });
      if (options.loginWorks === false) return;
      const token = await idp.mintAccessToken({ expiresInSeconds: 300 });
      await (
        await ctx.store()
      ).put(expired.profile, { ...expired.stored, access_token: token, expires_at: new Date(Date.now() + 300_000).toISOString() });
    },
  };
  return { relogin, calls };
}

/** The original command: needs the stored credential (never offering a login itself) and calls the API. */
function whoamiCommand(ctx: Context) {
  let runs = 0;
  const run = async () => {
    runs += 1;
    const credential = await activeCredential(ctx, { relogin: false });
    const response = await fetch(`${credential.server}/auth/me`, { headers: { authorization: `Bearer ${credential.accessToken}` } });
    return (await response.json()) as { username: string };
  };
  return { run, runs: () => runs };
}

async function waitForStderr(t: Terminal, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(t.stderr());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no ${pattern} on stderr:\n${t.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('whether svc may offer to log in again', () => {
  const profile = (method: StoredProfile['method']) => ({ method, client_id: 'svc-cli' }) as StoredProfile;
  const tty = { stdin: { isRaw: false } as NodeJS.ReadStream, stdinIsTTY: true, stderrIsTTY: true };

  it('asks only when stdin and stderr are terminals, stdin is not held raw, and CI is unset', () => {
    expect(mayOfferRelogin(tty, {}, profile('device'))).toBe(true);
    expect(mayOfferRelogin({ ...tty, stdinIsTTY: false }, {}, profile('device'))).toBe(false);
    expect(mayOfferRelogin({ ...tty, stderrIsTTY: false }, {}, profile('device'))).toBe(false);
    expect(mayOfferRelogin({ ...tty, stdin: { isRaw: true } as NodeJS.ReadStream }, {}, profile('device'))).toBe(false);
    expect(mayOfferRelogin(tty, { CI: 'true' }, profile('pkce'))).toBe(false);
    expect(mayOfferRelogin(tty, { CI: 'false' }, profile('pkce'))).toBe(true);
  });

  it("asks only when the profile's login can be repeated: device, browser, client credentials with the secret in the environment", () => {
    expect(mayOfferRelogin(tty, {}, profile('pkce'))).toBe(true);
    expect(mayOfferRelogin(tty, {}, profile('token'))).toBe(false);
    expect(mayOfferRelogin(tty, {}, profile('client_credentials'))).toBe(false);
    expect(mayOfferRelogin(tty, { SVC_CLIENT_SECRET: 's' }, profile('client_credentials'))).toBe(true);
    expect(mayOfferRelogin(tty, { SVC_CLIENT_SECRET: 's', SVC_CLIENT_ID: 'another' }, profile('client_credentials'))).toBe(false);
  });
});

describe('the [Y/n] question', () => {
  const ask = async (input: string | null, signal = new AbortController().signal) => {
    const t = terminal();
    if (input === null) t.stdin.end();
    else t.stdin.write(input);
    return askDefaultYes(t.ctx.io, 'Log in again? [Y/n] ', signal);
  };

  it('takes Enter, y and yes as yes', async () => {
    expect(await ask('\r')).toBe(true);
    expect(await ask('y\r')).toBe(true);
    expect(await ask('YES\n')).toBe(true);
  });

  it('takes n, anything else, Ctrl-C, end of input and an aborted command as no', async () => {
    expect(await ask('n\r')).toBe(false);
    expect(await ask('later\r')).toBe(false);
    expect(await ask('\u0003')).toBe(false);
    expect(await ask(null)).toBe(false);
    expect(await ask('', AbortSignal.abort())).toBe(false);
  });
});

describe('withRelogin (a fake login)', () => {
  it("yes: runs the profile's login flow, then the command once more, which succeeds", async () => {
    await storeExpiredSession('ops');
    const t = terminal({ profile: 'ops' });
    const { relogin, calls } = fakeRelogin(true);
    const command = whoamiCommand(t.ctx);
    expect(await withRelogin(t.ctx, command.run, relogin)).toMatchObject({ username: 'admin' });
    expect(command.runs()).toBe(2);
    expect(calls.logins).toEqual([{ profile: 'ops', mode: 'interactive', device: true }]);
    expect(calls.questions).toHaveLength(1);
    expect(calls.questions[0]).toContain('ops');
    expect(calls.questions[0]).toContain(daemon.url);
  });

  it('no: the command fails with the auth exit code and the exact login command; no login runs', async () => {
    await storeExpiredSession('ops');
    const t = terminal({ profile: 'ops' });
    const { relogin, calls } = fakeRelogin(false);
    const command = whoamiCommand(t.ctx);
    const failure = await withRelogin(t.ctx, command.run, relogin).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SessionExpiredError);
    expect(exitCodeOf(failure)).toBe(4);
    expect((failure as SessionExpiredError).hint).toBe(`svc login --server ${daemon.url} --profile ops`);
    expect(calls.logins).toEqual([]);
    expect(command.runs()).toBe(1);
    expect((await new CredentialStore(cliEnv()).get('ops'))?.access_token).toBe('expired-access-token');
  });

  it('without a terminal asks nothing and fails with the auth exit code', async () => {
    await storeExpiredSession();
    for (const flags of [{ stdinIsTTY: false }, { stderrIsTTY: false }]) {
      const t = terminal(flags);
      const { relogin, calls } = fakeRelogin(true);
      const failure = await withRelogin(t.ctx, whoamiCommand(t.ctx).run, relogin).catch((err: unknown) => err);
      expect(exitCodeOf(failure)).toBe(4);
      expect(calls.questions).toEqual([]);
    }
  });

  it('retries once: a session still expired after the login is final', async () => {
    await storeExpiredSession();
    const t = terminal();
    const { relogin, calls } = fakeRelogin(true, { loginWorks: false });
    const command = whoamiCommand(t.ctx);
    expect(exitCodeOf(await withRelogin(t.ctx, command.run, relogin).catch((err: unknown) => err))).toBe(4);
    expect(command.runs()).toBe(2);
    expect(calls.questions).toHaveLength(1);
  });

  it('a failed login leaves the auth exit code', async () => {
    await storeExpiredSession();
    const t = terminal();
    const relogin: Relogin = { ask: async () => true, login: async () => Promise.reject(new Error('provider down')) };
    expect(exitCodeOf(await withRelogin(t.ctx, whoamiCommand(t.ctx).run, relogin).catch((err: unknown) => err))).toBe(4);
  });
});

describe('a command whose refresh fails, in a terminal (the real prompt and login flow)', () => {
  it("asks, logs in again with the profile's device grant, stores the credential and completes the request", async () => {
    await storeExpiredSession();
    const t = terminal();
    t.stdin.write('y\r');
    const pending = new ApiClient(t.ctx).request({ method: 'GET', path: '/auth/me' });
    const [, uri] = await waitForStderr(t, /Verification URL: (\S+)/);
    const [, code] = await waitForStderr(t, /User code: (\S+)/);
    const viewer = DEV_USERS.find((u) => u.username === 'viewer')!;
    expect(await approveDeviceCode(uri!, code!, { username: viewer.username, password: viewer.password })).toBe(true);
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ username: 'viewer' });
    const stored = await new CredentialStore(cliEnv()).get('default');
    expect(stored).toMatchObject({ method: 'device', username: 'viewer', server: daemon.url });
    expect(stored?.refresh_token).not.toBe('not-a-refresh-token');
    expect(Date.parse(stored!.expires_at!)).toBeGreaterThan(Date.now());
  });

  it('Ctrl-C at the question: the auth exit code with the login command, nothing stored', async () => {
    const before = await storeExpiredSession();
    const t = terminal();
    t.stdin.write('\u0003');
    const failure = await new ApiClient(t.ctx).request({ method: 'GET', path: '/auth/me' }).catch((err: unknown) => err);
    expect(exitCodeOf(failure)).toBe(4);
    expect((failure as SessionExpiredError).hint).toBe(`svc login --server ${daemon.url}`);
    expect(await new CredentialStore(cliEnv()).get('default')).toEqual(before);
  });
});

describe('svc without a terminal (subprocess)', () => {
  it('exits 4 naming the login command, asks nothing and changes nothing', async () => {
    await storeExpiredSession('ops');
    const path = join(configHome, 'svc', 'credentials.json');
    const before = await readFile(path, 'utf8');
    const { code, stderr } = await runSvc(['whoami', '--profile', 'ops'], { configHome });
    expect(code).toBe(4);
    expect(stderr).toContain(`svc login --server ${daemon.url} --profile ops`);
    expect(stderr).not.toContain('[Y/n]');
    expect(await readFile(path, 'utf8')).toBe(before);
  });
});
