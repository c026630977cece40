import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, type SvcRun } from './helpers/cli.js';
import { startWorld, type World } from './helpers/webhooks-fixtures.js';

/** `svc workers` and `svc health` as built (a subprocess, no terminal) against real daemons: root is a platform admin, carol an organization's viewer. */
const TOKEN = 'worker-secret-0123456789-abcdefghij';
let w: World;
let configHome: string;

async function heartbeat(body: object): Promise<void> {
  const answer = await fetch(`${w.url}/internal/workers/heartbeat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-token': TOKEN },
    body: JSON.stringify({ wait_s: 0, free_slots: 0, ...body }),
  });
  expect(answer.status).toBe(200);
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  w = await startWorld({ SERVICE_INTERNAL_API_TOKEN: TOKEN });
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-platform-'));
  await heartbeat({
    worker_id: 'edge-a',
    hostname: 'edge-a.example',
    version: '1.2.3',
    handlers: ['general.noop', 'general.sleep'],
    free_slots: 2,
  });
  await heartbeat({ worker_id: 'edge-b', draining: true });
  await heartbeat({ worker_id: 'old-c' });
  await w
    .knex()('workers')
    .where({ id: 'old-c' })
    .update({ last_seen_at: new Date(Date.now() - 3_600_000) });
});
afterAll(async () => {
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(world: World, who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', world.url, ...args], { configHome, env: { SVC_TOKEN: world.as[who]!.replace(/^Bearer /, '') } });
}

describe('svc workers', () => {
  it('lists the workers, online or offline, with what they run, to realm viewers only', async () => {
    const all = await svc(w, 'root', ['workers', 'list']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/edge-a\s+online\s+0\/2\s+edge-a\.example\s+1\.2\.3\s+2/);
    expect(all.stdout).toMatch(/edge-b\s+online, draining/);
    const offline = JSON.parse((await svc(w, 'root', ['workers', 'list', '--status', 'offline', '--json'])).stdout);
    expect(offline.items.map((x: { id: string }) => x.id)).toEqual(['old-c']);
    expect((await svc(w, 'root', ['workers', 'list', '--status', 'gone'])).code).toBe(2);
    // Workers are the platform's: an organization's viewer is not a realm viewer.
    expect((await svc(w, 'carol', ['--org', 'acme', 'workers', 'list'])).code).toBe(5);
  });
});

describe('svc health', () => {
  it('prints the checks and exits 0 while the platform is not down; 5 for an organization’s member', async () => {
    const report = await svc(w, 'root', ['health']);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/database\s+ok/);
    expect(report.stdout).toMatch(/registry\s+not_configured/);
    expect((await svc(w, 'carol', ['--org', 'acme', 'health'])).code).toBe(5);
  });

  it('exits 1 when a check is down, the report still on stdout', async () => {
    const down = await startWorld({ SERVICE_REGISTRY_URL: `http://127.0.0.1:${await closedPort()}` });
    try {
      const report = await svc(down, 'root', ['health', '--json']);
      expect(report.code).toBe(1);
      const body = JSON.parse(report.stdout) as { status: string; checks: { name: string; status: string }[] };
      expect(body.status).toBe('down');
      expect(body.checks.find((c) => c.name === 'registry')?.status).toBe('down');
    } finally {
      await down.close();
    }
  });
});
