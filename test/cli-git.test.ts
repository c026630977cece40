import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowToYaml } from '../src/shared/flows/flow-yaml.js';
import { runSvc, type SvcRun } from './helpers/cli.js';
import { bareRepository, showFile } from './helpers/git-fixtures.js';
import { call, createSecret, seedFlow, startWorld, TARGETED, type World } from './helpers/webhooks-fixtures.js';

/** `svc flows pull|push` and `svc git-repos list|sync|create|update|delete` as built, against a daemon and a bare repository on disk (file://). */
let w: World;
let root: string;
let configHome: string;
let bare: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await startWorld({ SERVICE_GIT_ALLOW_FILE_URLS: 'true' });
  root = await mkdtemp(join(tmpdir(), 'svc-cli-git-'));
  configHome = join(root, 'config');
  bare = await bareRepository(root, 'flows', {
    'core.yaml': flowToYaml({ name: 'core', description: null, version: 1, definition: TARGETED }),
  });
  const repo = await call(w, 'dave', 'POST', '/git-repositories', { name: 'flows', url: `file://${bare}` });
  ids.repo = repo.body.id;
  ids.core = await seedFlow(w.knex(), w.ids.acme!, { name: 'core' });
  ids.broken = await seedFlow(w.knex(), w.ids.acme!, { name: 'broken' });
  await call(w, 'dave', 'PATCH', `/flows/${ids.core}/git`, { repo_id: ids.repo, path: 'core.yaml' });
  await call(w, 'dave', 'PATCH', `/flows/${ids.broken}/git`, { repo_id: ids.repo, path: 'missing.yaml' });
}, 60_000);
afterAll(async () => {
  await w?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });
}

describe('svc git-repos and svc flows pull|push', () => {
  it('lists repositories (table and --json)', async () => {
    const table = await svc('carol', ['git-repos', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('flows');
    const json = await svc('carol', ['git-repos', 'list', '--json']);
    expect(JSON.parse(json.stdout).items[0]).toMatchObject({ id: ids.repo, linked_flows: 2 });
  });

  it('pulls a flow by name, commits, then pushes it; --json prints the sync entry', async () => {
    const pulled = await svc('dave', ['flows', 'pull', 'core']);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toMatch(/^updated [0-9a-f]{40}\n$/);
    await call(w, 'dave', 'POST', `/flows/${ids.core}/commit`, {});
    const pushed = await svc('dave', ['flows', 'push', 'core', '--json', '-m', 'From the CLI']);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout)).toMatchObject({ direction: 'push', outcome: 'pushed', flow_version: 1 });
    expect(showFile(bare, 'main', 'core.yaml')).toMatch(/^# Flow "core"/);
  });

  it('syncs a repository: one line per flow, exit 1 when a flow was not synced; a viewer is refused (exit 5)', async () => {
    const sync = await svc('dave', ['git-repos', 'sync', 'flows', '--json']);
    expect(sync.code).toBe(1);
    const items = JSON.parse(sync.stdout).items as { flow_id: string; outcome: string; code: string | null }[];
    expect(items.find((e) => e.flow_id === ids.broken)).toMatchObject({ outcome: 'refused', code: 'git_path_not_found' });
    expect(items.find((e) => e.flow_id === ids.core)?.outcome).toBe('unchanged');
    expect((await svc('carol', ['flows', 'pull', 'core'])).code).toBe(5);
  });
});

describe('svc git-repos create, update and delete', () => {
  const repoRow = (name: string) => w.knex()('git_repositories').where({ org_id: w.ids.acme, name }).first();
  beforeAll(async () => {
    await createSecret(w, 'alice', 'git-token', 'token-value');
    await createSecret(w, 'alice', 'deploy-key', 'key-value');
  });

  it('adds a repository with a token as a secret reference; a URL with credentials is 422; a viewer is refused', async () => {
    const created = await svc('dave', [
      ...['git-repos', 'create', 'mirror', `file://${bare}`, '--branch', 'main'],
      ...['--token', "{{ secret('git-token') }}", '--username', 'ci'],
    ]);
    expect(created.code, created.stderr).toBe(0);
    const row = await repoRow('mirror');
    expect(created.stdout).toBe(`${row.id}\n`);
    expect(row).toMatchObject({ default_branch: 'main', auth_type: 'token', auth_username: 'ci', secret_ref: "{{ secret('git-token') }}" });

    const withPassword = await svc('dave', ['git-repos', 'create', 'leaky', 'https://ci:hunter2@git.example.com/flows.git']);
    expect(withPassword.code).toBe(1);
    expect(withPassword.stderr).toContain('code: git_url_refused');
    expect((await svc('carol', ['git-repos', 'create', 'leaky', `file://${bare}`])).code).toBe(5);
    expect((await svc('dave', ['git-repos', 'create', 'leaky', `file://${bare}`, '--token', 'a', '--ssh-key', 'b'])).code).toBe(2);
    expect((await svc('dave', ['git-repos', 'create', 'leaky', `file://${bare}`, '--username', 'ci'])).code).toBe(2);
    expect(await repoRow('leaky')).toBeUndefined();
  });

  it('changes a repository by name: an SSH key with known hosts, then no credentials; nothing to change is exit 2', async () => {
    const knownHosts = join(root, 'known_hosts');
    await writeFile(knownHosts, 'git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n');
    const keyed = await svc('dave', [
      'git-repos',
      'update',
      'mirror',
      '--ssh-key',
      "{{ secret('deploy-key') }}",
      '--known-hosts',
      knownHosts,
    ]);
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(await repoRow('mirror')).toMatchObject({ auth_type: 'ssh_key', known_hosts: expect.stringContaining('git.example.com') });
    const open = await svc('dave', ['git-repos', 'update', 'mirror', '--no-auth', '--name', 'mirror-2', '--json']);
    expect(open.code, open.stderr).toBe(0);
    expect(JSON.parse(open.stdout)).toMatchObject({ name: 'mirror-2', auth: { type: 'none' } });
    expect((await svc('dave', ['git-repos', 'update', 'mirror-2'])).code).toBe(2);
    expect((await svc('dave', ['git-repos', 'update', 'no-such-repo', '--branch', 'dev'])).code).toBe(3);
  });

  it('removes a repository nothing links to (--yes); one flows link to is 409 and stays', async () => {
    const linked = await svc('dave', ['git-repos', 'delete', 'flows', '--yes']);
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain('code: conflict');
    expect(await repoRow('flows')).toBeDefined();
    const removed = await svc('dave', ['git-repos', 'delete', 'mirror-2', '--yes', '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ deleted: true });
    expect(await repoRow('mirror-2')).toBeUndefined();
  });
});
