import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { runSvc } from './helpers/cli.js';

let idp: DevIdp;
let daemon: TestDaemon;
let configHome: string;
let token: string;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer });
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-api-'));
  token = await idp.mintAccessToken({ expiresInSeconds: 600 });
  // Five organizations besides the default one: lists of three pages at limit=2.
  for (const n of [1, 2, 3, 4, 5]) {
    const made = await svc(['api', 'POST', '/orgs', '-f', `slug=page-org-${n}`, '-f', `name=Page org ${n}`]);
    expect(made.code, made.stderr).toBe(0);
  }
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

/** The platform admin's token in SVC_TOKEN, against the test daemon. */
function svc(args: string[]) {
  return runSvc(['--server', daemon.url, ...args], { configHome, env: { SVC_TOKEN: token } });
}

describe('svc api --jq', () => {
  it('prints what the filter makes of the answer, strings raw and values compact when not a terminal', async () => {
    const name = await svc(['api', 'GET', '/auth/me', '--jq', '.username']);
    expect(name.code, name.stderr).toBe(0);
    expect(name.stdout).toBe('admin\n');
    const slugs = await svc(['api', 'GET', '/orgs', '--jq', '[.items[].slug | select(startswith("page-org-"))]']);
    expect(slugs.code, slugs.stderr).toBe(0);
    expect(slugs.stdout).toBe('["page-org-1","page-org-2","page-org-3","page-org-4","page-org-5"]\n');
  });

  it('exits 2 on a filter that does not compile and 1 on one that fails on the answer, printing nothing', async () => {
    const broken = await svc(['api', 'GET', '/auth/me', '--jq', '.[[[']);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toBe('');
    const failing = await svc(['api', 'GET', '/orgs', '--jq', '.items | .slug']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toBe('');
  });
});

describe('svc api -i/--include', () => {
  it('prints the status line and the headers, a blank line, then the body', async () => {
    const { code, stdout, stderr } = await svc(['api', 'GET', '/auth/me', '-i', '-H', 'X-Request-Id: cli-include-1']);
    expect(code, stderr).toBe(0);
    const [head, body] = [stdout.slice(0, stdout.indexOf('\n\n')), stdout.slice(stdout.indexOf('\n\n') + 2)];
    const lines = head.split('\n');
    expect(lines[0]).toBe('HTTP/1.1 200 OK');
    expect(lines).toContain('X-Request-Id: cli-include-1');
    expect(lines.some((l) => /^Content-Type: application\/json/.test(l))).toBe(true);
    expect(JSON.parse(body)).toMatchObject({ username: 'admin' });
  });
});

describe('svc api --paginate', () => {
  it('follows offset pages to the end and prints one answer with every item', async () => {
    const whole = await svc(['api', 'GET', '/orgs', '-F', 'limit=500']);
    const all = JSON.parse(whole.stdout) as { items: { slug: string }[]; total: number };
    expect(all.total).toBe(6);
    const paged = await svc(['api', 'GET', '/orgs?limit=2', '--paginate']);
    expect(paged.code, paged.stderr).toBe(0);
    const merged = JSON.parse(paged.stdout) as { items: { slug: string }[]; total: number; offset: number };
    expect(merged.items.map((o) => o.slug)).toEqual(all.items.map((o) => o.slug));
    expect(merged).toMatchObject({ total: 6, offset: 0 });
    // One request per page: three pages of two.
    const heads = await svc(['api', 'GET', '/orgs', '-F', 'limit=2', '--paginate', '-i']);
    expect(heads.stdout.match(/^HTTP\/1\.1 200 OK$/gm)).toHaveLength(3);
  });

  it('follows next_cursor (the audit log) until it is null; --jq sees the merged answer', async () => {
    const until = new Date().toISOString();
    const whole = await svc(['api', 'GET', '/audit-logs', '-F', 'limit=500', '-f', `until=${until}`, '--jq', '[.items[].id]']);
    const ids = JSON.parse(whole.stdout) as string[];
    expect(ids.length).toBeGreaterThan(4);
    const paged = await svc([
      'api',
      'GET',
      '/audit-logs',
      '-F',
      'limit=2',
      '-f',
      `until=${until}`,
      '--paginate',
      '--jq',
      '{ids: [.items[].id], next_cursor}',
    ]);
    expect(paged.code, paged.stderr).toBe(0);
    expect(JSON.parse(paged.stdout)).toEqual({ ids, next_cursor: null });
  });

  it('without --paginate prints the first page only', async () => {
    const first = await svc(['api', 'GET', '/orgs', '-F', 'limit=2', '--jq', '.items | length']);
    expect(first.stdout).toBe('2\n');
  });

  it('exits 2 for a method other than GET', async () => {
    const { code, stdout } = await svc(['api', 'POST', '/orgs', '--paginate', '-f', 'slug=never-made', '-f', 'name=x']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect((await svc(['api', 'GET', '/orgs', '--jq', '[.items[].slug] | index("never-made")'])).stdout).toBe('null\n');
  });
});
