import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, ok, runSvc, type SvcRun } from './helpers/cli.js';
import { sha256, uploadStream } from './helpers/files-fixtures.js';
import { BARE, call, seedFlow, startWorld, type World } from './helpers/webhooks-fixtures.js';

/** `svc files` and `svc file-repos` as built (a subprocess, no terminal) against a real daemon: alice (admin), carol (viewer). */
let w: World;
let work: string;

beforeAll(async () => {
  w = await startWorld();
  work = await mkdtemp(join(tmpdir(), 'svc-cli-files-'));
});
afterAll(async () => {
  await w?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function svc(who: string, args: string[], stdin?: string): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], {
    configHome: work,
    env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') },
    ...(stdin === undefined ? {} : { stdin }),
  });
}

describe('svc files and svc file-repos', () => {
  it('uploads from a path (to the default repository) and stdin, lists, gets, downloads to a path and stdout byte-identical', async () => {
    const image = randomBytes(300_000);
    await writeFile(join(work, 'c9300.bin'), image);
    const up = await json(svc('alice', ['files', 'upload', join(work, 'c9300.bin'), '--folder', 'images', '--json']));
    expect(up).toMatchObject({ path: 'images/c9300.bin', size_bytes: image.length, sha256: sha256(image) });
    const fromStdin = await json(
      svc('alice', ['files', 'upload', '-', '--name', 'configs/r1.cfg', '--repo', 'default', '--json'], 'hostname r1\n'),
    );
    expect(fromStdin).toMatchObject({ path: 'configs/r1.cfg', content_type: 'text/plain; charset=utf-8' });

    const page = await json<{ items: { path: string }[]; total: number }>(svc('carol', ['files', 'list', '--json']));
    expect(page.items.map((f) => f.path)).toEqual(['configs/r1.cfg', 'images/c9300.bin']);
    expect((await ok(svc('carol', ['files', 'list', '--folder', 'images']))).stdout).toMatch(/c9300\.bin/);
    expect(await json(svc('carol', ['files', 'get', 'images/c9300.bin', '--json']))).toMatchObject({ id: up.id });

    const target = join(work, 'out.bin');
    await ok(svc('carol', ['files', 'download', up.id, '-o', target]));
    expect((await readFile(target)).equals(image)).toBe(true);
    const again = await svc('carol', ['files', 'download', up.id, '-o', target]);
    expect(again.code).toBe(1);
    const piped = await ok(svc('carol', ['files', 'download', 'configs/r1.cfg', '-o', '-']));
    expect([piped.stdout, piped.stderr]).toEqual(['hostname r1\n', '']);
  });

  it('shows usage and refuses to delete a used file (exit 1) until --force; exits 2, 3 and 5 by the refusal', async () => {
    const up = await uploadStream(
      w,
      (await call(w, 'alice', 'POST', '/file-repositories/ensure-default')).body.id,
      { name: 'ios.bin' },
      randomBytes(64),
    );
    const flowId = await seedFlow(w.knex(), w.ids.acme!, {
      name: 'upgrade',
      versions: [{ ...BARE, steps: [{ id: 'stage', handler: 'general.noop', config: { file_ids: [up.body.id] } }] }],
    });
    const usage = await json(svc('carol', ['files', 'usage', 'ios.bin', '--json']));
    expect(usage).toMatchObject({ in_use: true, flows: [{ flow_id: flowId }] });
    expect((await ok(svc('carol', ['files', 'usage', up.body.id]))).stdout).toContain(flowId);

    const refused = await svc('alice', ['files', 'rm', 'ios.bin', '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('file_in_use');
    expect((await svc('alice', ['files', 'rm', 'ios.bin'])).code).toBe(2);
    expect((await svc('carol', ['files', 'rm', 'ios.bin', '--yes', '--force'])).code).toBe(5);
    expect(await json(svc('alice', ['files', 'rm', 'ios.bin', '--yes', '--force', '--json']))).toEqual({ id: up.body.id, deleted: true });
    expect((await svc('carol', ['files', 'get', 'ios.bin'])).code).toBe(3);
    expect((await svc('alice', ['files', 'upload', '-'], 'x')).code).toBe(2);
  });

  it('lists repositories and tests one by name: exit 0 when every check passes', async () => {
    const repos = await json<{ items: { name: string; is_default: boolean }[] }>(svc('carol', ['file-repos', 'list', '--json']));
    expect(repos.items.map((r) => [r.name, r.is_default])).toEqual([['default', true]]);
    const report = await json(svc('alice', ['file-repos', 'test', 'default', '--json']));
    expect(report).toMatchObject({ ok: true });
    expect((await svc('alice', ['file-repos', 'test', 'nope'])).code).toBe(3);
  });

  it('creates, changes, makes default and deletes a repository; bad settings are 422; one holding files is 409', async () => {
    const repo = (name: string) => w.knex()('file_repositories').where({ org_id: w.ids.acme, name }).first();
    const created = await svc('alice', ['file-repos', 'create', 'archive', '--kind', 'local', '--description', 'old images']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe(`${(await repo('archive')).id}\n`);
    expect(await repo('archive')).toMatchObject({ kind: 'local', is_default: false, description: 'old images' });
    const invalid = await svc('alice', ['file-repos', 'create', 'bucket', '--kind', 's3', '--config', '{}']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('code: validation_failed');
    expect((await svc('alice', ['file-repos', 'create', 'bucket', '--kind', 'ftp'])).code).toBe(2);
    expect((await svc('carol', ['file-repos', 'create', 'bucket', '--kind', 'local'])).code).toBe(5);
    expect(await repo('bucket')).toBeUndefined();

    const changed = await json(svc('alice', ['file-repos', 'update', 'archive', '--name', 'archive-2', '--description', '', '--json']));
    expect(changed).toMatchObject({ name: 'archive-2', description: null });
    expect((await svc('alice', ['file-repos', 'update', 'archive-2'])).code).toBe(2);

    await ok(svc('alice', ['file-repos', 'set-default', 'archive-2']));
    expect(await repo('archive-2')).toMatchObject({ is_default: true });
    expect(await repo('default')).toMatchObject({ is_default: false });
    await ok(svc('alice', ['file-repos', 'set-default', 'default']));

    const holding = await svc('alice', ['file-repos', 'delete', 'default', '--yes']);
    expect(holding.code).toBe(1);
    expect(holding.stderr).toContain('code: file_repository_not_empty');
    expect(await repo('default')).toBeDefined();
    const deleted = await json(svc('alice', ['file-repos', 'delete', 'archive-2', '--yes', '--json']));
    expect(deleted).toMatchObject({ deleted: true });
    expect(await repo('archive-2')).toBeUndefined();
  });
});
