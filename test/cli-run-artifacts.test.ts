import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedRun, sha256, startArtifactsWorld, unzip, upload, type ArtifactsWorld } from './helpers/artifacts-fixtures.js';
import { runSvc, type SvcRun } from './helpers/cli.js';

/**
 * `svc runs artifacts` and `svc runs download` as built (a subprocess, no terminal) against a real daemon
 * whose run got its artifacts through the worker's upload route. vic is a viewer of acme, bea of beta.
 */
let world: ArtifactsWorld;
let dir: string;
let runId: string;
const config = 'hostname r1\ninterface ge-0/0/0\n';
const capture = randomBytes(300 * 1024);
let captureId: string;

beforeAll(async () => {
  world = await startArtifactsWorld();
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-run-artifacts-'));
  ({ runId } = await claimedRun(world));
  const first = await upload(world, runId, Buffer.from(config), { name: 'configs/r1.cfg', stepId: 'backup', contentType: 'text/plain' });
  expect(first.status).toBe(201);
  const second = await upload(world, runId, capture, { name: 'capture.bin' });
  expect(second.status).toBe(201);
  captureId = ((await second.json()) as { id: string }).id;
});
afterAll(async () => {
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function svc(who: 'vic' | 'bea', args: string[], org = 'acme'): Promise<SvcRun> {
  return runSvc(['--server', world.daemon.url, '--org', org, ...args], {
    configHome: dir,
    env: { SVC_TOKEN: world.as[who].replace(/^Bearer /, '') },
  });
}

describe('svc runs artifacts', () => {
  it("lists the run's artifacts oldest first; --json in the upload's field names", async () => {
    const listed = await svc('vic', ['runs', 'artifacts', runId, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const { items } = JSON.parse(listed.stdout) as { items: Record<string, unknown>[] };
    expect(items).toEqual([
      expect.objectContaining({
        run_id: runId,
        name: 'configs/r1.cfg',
        step_id: 'backup',
        size_bytes: config.length,
        sha256: sha256(Buffer.from(config)),
        attempt: 1,
      }),
      expect.objectContaining({ id: captureId, name: 'capture.bin', step_id: null, size_bytes: capture.length, sha256: sha256(capture) }),
    ]);
    const table = await svc('vic', ['runs', 'artifacts', runId]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+STEP\s+SIZE\s+TYPE\s+CREATED/);
    expect(table.stdout).toContain('configs/r1.cfg');
  });

  it("is 404 (exit 3) for another organization's run", async () => {
    const refused = await svc('bea', ['runs', 'artifacts', runId], 'beta');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('code: resource_not_found');
  });
});

describe('svc runs download', () => {
  it('writes one artifact, found by name or id, byte for byte; - is stdout', async () => {
    const byName = join(dir, 'r1.cfg');
    const named = await svc('vic', ['runs', 'download', runId, 'configs/r1.cfg', '-o', byName]);
    expect(named.code, named.stderr).toBe(0);
    expect(await readFile(byName, 'utf8')).toBe(config);

    const byId = join(dir, 'capture.bin');
    const ided = await svc('vic', ['runs', 'download', runId, captureId, '-o', byId]);
    expect(ided.code, ided.stderr).toBe(0);
    expect((await readFile(byId)).equals(capture)).toBe(true);

    const piped = await svc('vic', ['runs', 'download', runId, 'configs/r1.cfg', '-o', '-']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(config);
  });

  it('--all writes the zip of every artifact', async () => {
    const zip = join(dir, 'all.zip');
    const result = await svc('vic', ['runs', 'download', runId, '--all', '-o', zip]);
    expect(result.code, result.stderr).toBe(0);
    const entries = await unzip(await readFile(zip));
    expect([...entries.keys()]).toEqual(['configs/r1.cfg', 'capture.bin']);
    expect(entries.get('configs/r1.cfg')!.toString()).toBe(config);
    expect(entries.get('capture.bin')!.equals(capture)).toBe(true);
  });

  it('refuses an unknown artifact (3), neither or both of an artifact and --all (2), and an existing file without --clobber (1)', async () => {
    const unknown = await svc('vic', ['runs', 'download', runId, 'nope.txt', '-o', join(dir, 'nope')]);
    expect(unknown.code).toBe(3);
    expect((await svc('vic', ['runs', 'download', runId])).code).toBe(2);
    expect((await svc('vic', ['runs', 'download', runId, 'capture.bin', '--all'])).code).toBe(2);

    const taken = join(dir, 'taken.cfg');
    await writeFile(taken, 'mine');
    const kept = await svc('vic', ['runs', 'download', runId, 'configs/r1.cfg', '-o', taken]);
    expect(kept.code).toBe(1);
    expect(await readFile(taken, 'utf8')).toBe('mine');
    const clobbered = await svc('vic', ['runs', 'download', runId, 'configs/r1.cfg', '-o', taken, '--clobber']);
    expect(clobbered.code, clobbered.stderr).toBe(0);
    expect(await readFile(taken, 'utf8')).toBe(config);
    expect((await readdir(dir)).filter((name) => name.endsWith('.part'))).toEqual([]);
  });

  it("is 404 (exit 3) for another organization's run, and writes nothing", async () => {
    const target = join(dir, 'beta.zip');
    const refused = await svc('bea', ['runs', 'download', runId, '--all', '-o', target], 'beta');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('code: resource_not_found');
    expect((await readdir(dir)).filter((name) => name.startsWith('beta.zip'))).toEqual([]);
  });
});
