import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtemp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { runSvc } from './helpers/cli.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

let idp: DevIdp;
let daemon: TestDaemon;
let portal: Server;
let portalUrl: string;
const portalRequests: IncomingHttpHeaders[] = [];
let configHome: string;
let adminToken: string;
let viewerToken: string;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer });
  const knex = daemon.services.db.knex;
  await seedOrg(knex, 'acme');
  await seedUser(knex, { sub: 'sub-vera', username: 'vera' }, [{ orgSlug: 'default', role: 'viewer' }]);
  adminToken = await idp.mintAccessToken({ sub: 'sub-root', username: 'root', realmRoles: ['admin'] });
  viewerToken = await idp.mintAccessToken({ sub: 'sub-vera', username: 'vera', realmRoles: ['viewer'] });
  // A captive portal: 200 and an HTML page for every path.
  portal = createServer((req, res) => {
    portalRequests.push(req.headers);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script>function sub(){}</script><p>Sign in to the Wi-Fi</p>');
  });
  portal.listen(0, '127.0.0.1');
  await new Promise((resolve) => portal.once('listening', resolve));
  portalUrl = `http://127.0.0.1:${(portal.address() as AddressInfo).port}`;
});
afterAll(async () => {
  portal?.close();
  await daemon?.close();
  await idp?.stop();
});
beforeEach(async () => {
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-trust-'));
  portalRequests.length = 0;
  return () => rm(configHome, { recursive: true, force: true });
});

const svc = (args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) => runSvc(args, { configHome, ...options });
const credentialsPath = () => join(configHome, 'svc', 'credentials.json');
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('svc alone', () => {
  it('prints the help on stdout and exits 0', async () => {
    const run = await svc([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: svc /);
    expect(run.stdout).toContain('login');
    expect(run.stderr).toBe('');
  });
});

describe('a server that is not svc', () => {
  it('gets no credential from svc login --with-token: exit 6 naming the URL, nothing stored', async () => {
    const run = await svc(['login', '--server', portalUrl, '--with-token'], { stdin: `${viewerToken}\n` });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(`${portalUrl}/auth/config`);
    expect(await exists(credentialsPath())).toBe(false);
    expect(portalRequests.map((h) => h.authorization)).toEqual([undefined]);
  });

  it('gets no credential from an interactive login either', async () => {
    const run = await svc(['login', '--server', portalUrl, '--device']);
    expect(run.code).toBe(6);
    expect(await exists(credentialsPath())).toBe(false);
  });

  it('answers commands with an error (exit 6, the URL), not its page as data', async () => {
    const env = { SVC_TOKEN: 'some-token', SVC_SERVER: portalUrl };
    const whoami = await svc(['whoami'], { env });
    expect(whoami.code).toBe(6);
    expect(whoami.stdout).toBe('');
    expect(whoami.stderr).toContain(`${portalUrl}/auth/me`);
    const orgs = await svc(['orgs', 'list', '--json'], { env });
    expect(orgs.code).toBe(6);
    expect(orgs.stdout).toBe('');
  });

  it('is told apart from svc, which is recognised and logged in to', async () => {
    const run = await svc(['login', '--server', daemon.url, '--with-token'], { stdin: `${viewerToken}\n` });
    expect(run.code).toBe(0);
    expect(JSON.parse(await readFile(credentialsPath(), 'utf8'))).toMatchObject({
      profiles: { default: { server: daemon.url, username: 'vera' } },
    });
  });
});

describe('an organization that is not there', () => {
  it('is "not found" (exit 3) to a platform admin', async () => {
    const env = { SVC_TOKEN: adminToken, SVC_SERVER: daemon.url };
    const get = await svc(['orgs', 'get', 'no-such-org'], { env });
    expect(get.code).toBe(3);
    expect(get.stderr).toContain('org_not_found');
    const members = await svc(['members', 'list', '--org', 'no-such-org'], { env });
    expect(members.code).toBe(3);
  });

  it('is "not found" (exit 3) to a member of nothing by that name, alike for another tenant\'s and a nonexistent one', async () => {
    const env = { SVC_TOKEN: viewerToken, SVC_SERVER: daemon.url };
    const missing = await svc(['orgs', 'get', 'no-such-org'], { env });
    const foreign = await svc(['orgs', 'get', 'acme'], { env });
    expect(missing.code).toBe(3);
    expect(foreign.code).toBe(3);
    expect(foreign.stderr.replace(/request id: \S+/, '').replace('acme', 'X')).toBe(
      missing.stderr.replace(/request id: \S+/, '').replace('no-such-org', 'X'),
    );
    const header = await svc(['api', 'GET', '/runs', '--org', 'no-such-org'], { env });
    expect(header.code).toBe(3);
  });

  it('stays "forbidden" (exit 5) to a member who lacks the role, and on platform routes', async () => {
    const env = { SVC_TOKEN: viewerToken, SVC_SERVER: daemon.url };
    expect((await svc(['idp-mappings', 'list', '--org', 'default'], { env })).code).toBe(5);
    expect((await svc(['perms', 'actions', '--json', '--org', 'no-such-org'], { env })).code).toBe(5);
  });
});

describe('a damaged credentials file', () => {
  const damage = async () => {
    await mkdir(join(configHome, 'svc'), { recursive: true, mode: 0o700 });
    await writeFile(credentialsPath(), '{"version": 1, "profiles": {', { mode: 0o600 });
  };

  it('is named with the way to fix it', async () => {
    await damage();
    const run = await svc(['whoami', '--server', daemon.url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(credentialsPath());
    expect(run.stderr).toContain('svc login');
  });

  it('is replaced by svc login, keeping a .bak copy', async () => {
    await damage();
    const run = await svc(['login', '--server', daemon.url, '--with-token'], { stdin: `${viewerToken}\n` });
    expect(run.code).toBe(0);
    expect(await readFile(`${credentialsPath()}.bak`, 'utf8')).toBe('{"version": 1, "profiles": {');
    expect((await stat(`${credentialsPath()}.bak`)).mode & 0o777).toBe(0o600);
    expect((await svc(['whoami', '--json'])).code).toBe(0);
  });

  it('is forgotten by svc logout, keeping a .bak copy', async () => {
    await damage();
    const run = await svc(['logout']);
    expect(run.code).toBe(0);
    expect(await exists(`${credentialsPath()}.bak`)).toBe(true);
    expect(JSON.parse(await readFile(credentialsPath(), 'utf8'))).toEqual({ version: 1, profiles: {} });
    expect((await svc(['whoami', '--server', daemon.url])).code).toBe(4);
  });

  it('keeps the other profiles when only one is damaged', async () => {
    expect((await svc(['login', '--server', daemon.url, '--with-token', '--profile', 'good'], { stdin: `${viewerToken}\n` })).code).toBe(0);
    const file = JSON.parse(await readFile(credentialsPath(), 'utf8')) as { profiles: Record<string, unknown> };
    file.profiles.bad = { server: daemon.url };
    await writeFile(credentialsPath(), JSON.stringify(file));
    expect((await svc(['whoami', '--profile', 'bad'])).code).toBe(1);
    expect((await svc(['whoami', '--profile', 'good'])).code).toBe(0);
    expect((await svc(['login', '--server', daemon.url, '--with-token', '--profile', 'bad'], { stdin: `${viewerToken}\n` })).code).toBe(0);
    expect((await svc(['whoami', '--profile', 'bad'])).code).toBe(0);
    expect((await svc(['whoami', '--profile', 'good'])).code).toBe(0);
  });
});

describe('a server that does not answer', () => {
  it('is reported with the cause and the URL, not "fetch failed"', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await new Promise((resolve) => closed.once('listening', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await svc(['whoami'], { env: { SVC_TOKEN: 't', SVC_SERVER: url } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`cannot reach ${url}/auth/me: connection refused`);
    const login = await svc(['login', '--server', url, '--with-token'], { stdin: 't\n' });
    expect(login.stderr).toContain(`cannot reach ${url}/auth/config: connection refused`);
  });
});
