import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, ok, runSvc, type SvcRun } from './helpers/cli.js';
import { sha256 } from './helpers/files-fixtures.js';
import { BARE, call, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

/** `svc attachments` as built (a subprocess, no terminal) against a real daemon: alice (admin), carol (viewer) of acme. */
let w: World;
let work: string;
let flowId: string;

beforeAll(async () => {
  w = await startWorld();
  work = await mkdtemp(join(tmpdir(), 'svc-cli-attachments-'));
  const created = await call(w, 'alice', 'POST', '/flows', { name: 'deploy', definition: BARE });
  if (created.status !== 201) throw new Error(`POST /flows answered ${created.status}`);
  flowId = created.body.id as string;
});
afterAll(async () => {
  await w?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], {
    configHome: work,
    env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') },
  });
}

const paths = async () =>
  (await json<{ items: { path: string }[] }>(svc('carol', ['attachments', 'list', 'deploy', '--json']))).items.map((a) => a.path);

/** Writes `files` (relative path -> content) under `dir`. */
async function tree(dir: string, files: Record<string, Buffer | string>): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

describe('svc attachments', () => {
  const conf = randomBytes(20_000);

  it('uploads a file (by flow name or id) and a folder as one zip under its name, lists them, downloads byte-identical', async () => {
    await writeFile(join(work, 'site.yml'), '- hosts: all\n');
    const one = await json(svc('alice', ['attachments', 'upload', 'deploy', join(work, 'site.yml'), '--json']));
    expect(one).toMatchObject({ flow_id: flowId, path: 'site.yml', sha256: sha256(Buffer.from('- hosts: all\n')) });
    const renamed = await json(svc('alice', ['attachments', 'upload', flowId, join(work, 'site.yml'), '--as', 'plays/main.yml', '--json']));
    expect(renamed).toMatchObject({ path: 'plays/main.yml' });

    const roles = await tree(join(work, 'roles'), { 'ntp/tasks/main.yml': '- name: ntp\n', 'ntp/files/ntp.conf': conf });
    const bulk = await json(svc('alice', ['attachments', 'upload', 'deploy', roles, '--json']));
    expect(bulk).toMatchObject({ created: 2, replaced: 0 });
    expect(await paths()).toEqual(['plays/main.yml', 'roles/ntp/files/ntp.conf', 'roles/ntp/tasks/main.yml', 'site.yml']);
    expect((await ok(svc('carol', ['attachments', 'list', 'deploy', '--folder', 'roles']))).stdout).toMatch(/roles\/ntp\/files\/ntp\.conf/);

    const target = join(work, 'ntp.out');
    await ok(svc('carol', ['attachments', 'download', 'deploy', 'roles/ntp/files/ntp.conf', '-o', target]));
    expect((await readFile(target)).equals(conf)).toBe(true);
    expect((await svc('carol', ['attachments', 'download', 'deploy', 'roles/ntp/files/ntp.conf', '-o', target])).code).toBe(1);
    const piped = await ok(svc('carol', ['attachments', 'download', 'deploy', 'roles/ntp/tasks/main.yml']));
    expect([piped.stdout, piped.stderr]).toEqual(['- name: ntp\n', '']);
  });

  it('uploads a folder all or nothing: a taken path stores none of it (exit 1) until --overwrite', async () => {
    const again = await tree(join(work, 'again'), { 'ntp/tasks/main.yml': '- name: ntp v2\n', 'ntp/handlers/main.yml': '[]\n' });
    const refused = await svc('alice', ['attachments', 'upload', 'deploy', again, '--as', 'roles']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('attachment_exists');
    expect(await paths()).not.toContain('roles/ntp/handlers/main.yml');
    const replaced = await json(svc('alice', ['attachments', 'upload', 'deploy', again, '--as', 'roles', '--overwrite', '--json']));
    expect(replaced).toMatchObject({ created: 1, replaced: 1 });
  });

  it('moves a file, a file into a folder and a folder; removes several paths, none when one is missing', async () => {
    expect(await json(svc('alice', ['attachments', 'mv', 'deploy', 'site.yml', 'playbook.yml', '--json']))).toMatchObject({
      items: [{ path: 'playbook.yml' }],
    });
    await ok(svc('alice', ['attachments', 'mv', 'deploy', 'plays/main.yml', 'archive/']));
    const moved = await json<{ items: { path: string }[] }>(
      svc('alice', ['attachments', 'mv', 'deploy', 'roles/', 'ansible/roles', '--json']),
    );
    expect(moved.items.map((a) => a.path)).toHaveLength(3);
    expect(await paths()).toEqual([
      'ansible/roles/ntp/files/ntp.conf',
      'ansible/roles/ntp/handlers/main.yml',
      'ansible/roles/ntp/tasks/main.yml',
      'archive/main.yml',
      'playbook.yml',
    ]);

    expect((await svc('alice', ['attachments', 'rm', 'deploy', 'playbook.yml', 'nope.yml', '--yes'])).code).toBe(3);
    expect((await svc('alice', ['attachments', 'rm', 'deploy', 'playbook.yml'])).code).toBe(2);
    expect(await paths()).toContain('playbook.yml');
    const removed = await json<{ deleted: { path: string }[] }>(
      svc('alice', ['attachments', 'rm', 'deploy', 'playbook.yml', 'archive/main.yml', '--yes', '--json']),
    );
    expect(removed.deleted.map((d) => d.path)).toEqual(['playbook.yml', 'archive/main.yml']);
    expect(await paths()).toEqual([
      'ansible/roles/ntp/files/ntp.conf',
      'ansible/roles/ntp/handlers/main.yml',
      'ansible/roles/ntp/tasks/main.yml',
    ]);
  });

  it('exits 3 for an unknown flow or path, 5 for a viewer changing attachments', async () => {
    expect((await svc('carol', ['attachments', 'list', UNKNOWN_ID])).code).toBe(3);
    expect((await svc('carol', ['attachments', 'list', 'no-such-flow'])).code).toBe(3);
    expect((await svc('carol', ['attachments', 'download', 'deploy', 'missing.yml'])).code).toBe(3);
    expect((await svc('carol', ['attachments', 'mv', 'deploy', 'missing.yml', 'x.yml'])).code).toBe(3);
    await writeFile(join(work, 'viewer.yml'), 'x\n');
    expect((await svc('carol', ['attachments', 'upload', 'deploy', join(work, 'viewer.yml')])).code).toBe(5);
    expect((await svc('carol', ['attachments', 'rm', 'deploy', 'ansible/roles/ntp/tasks/main.yml', '--yes'])).code).toBe(5);
  });
});
