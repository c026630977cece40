import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowToYaml } from '../src/shared/flows/flow-yaml.js';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { urlRefusal } from '../src/daemon/domains/git/repository-url.js';
import { BACKEND } from './helpers/backend.js';
import { behindRowLock } from './helpers/row-lock.js';
import { bareRepository, commitFiles, showFile } from './helpers/git-fixtures.js';
import { startGitHttpServer, type GitHttpServer } from './helpers/git-http-server.js';
import { call, createSecret, seedFlow, startWorld, TARGETED, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

const TOKEN = 'tok-S3CRET-4f9a2c';
const WRONG = 'wrong-S3CRET-77e1';
const OTHER: FlowDefinition = { ...TARGETED, inputs: [] };

let world: World;
let server: GitHttpServer;
let root: string;
let bare: string;
const ids: Record<string, string> = {};
const knex = () => world.knex();
const yamlOf = (definition: FlowDefinition, name = 'core') => flowToYaml({ name, description: null, version: 1, definition });

beforeAll(async () => {
  // The test's git server listens on loopback, which the outbound guard refuses unless allowed.
  world = await startWorld({
    SERVICE_GIT_ALLOW_FILE_URLS: 'true',
    SERVICE_GIT_TIMEOUT_SECONDS: '30',
    SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
  });
  root = await mkdtemp(join(tmpdir(), 'svc-git-test-'));
  bare = await bareRepository(root, 'flows', {
    'flows/core.yaml': yamlOf(TARGETED),
    'flows/edge.yaml': yamlOf(OTHER, 'edge'),
    'README.md': '# flows\n',
  });
  server = await startGitHttpServer(root, 'ci', TOKEN);
  await createSecret(world, 'alice', 'git-token', TOKEN);
  await createSecret(world, 'alice', 'git-wrong', WRONG);
  ids.core = await seedFlow(knex(), world.ids.acme!, { name: 'core' });
  ids.edge = await seedFlow(knex(), world.ids.acme!, { name: 'edge' });
  ids.versioned = await seedFlow(knex(), world.ids.acme!, { name: 'versioned' });
  ids.local = await seedFlow(knex(), world.ids.acme!, { name: 'local' });
  ids.shared = await seedFlow(knex(), world.ids.commons!, { name: 'common', versions: [TARGETED] });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await world?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const tokenAuth = (secret = 'git-token') => ({ type: 'token', username: 'ci', secret_ref: `{{ secret('${secret}') }}` });

async function createRepository(name: string, auth: unknown = tokenAuth(), url = `${server.url}/flows.git`) {
  const created = await call(world, 'dave', 'POST', '/git-repositories', { name, url, auth });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

async function link(flowId: string, repoId: string, path: string, mode = 'draft') {
  const linked = await call(world, 'dave', 'PATCH', `/flows/${flowId}/git`, { repo_id: repoId, path, mode });
  expect(linked.status).toBe(200);
}

describe('repository URLs', () => {
  it.each([
    ['ext::sh -c touch% /tmp/pwned', 'dangerous_transport'],
    ['fd::17', 'dangerous_transport'],
    ['/srv/git/flows.git', 'local_path'],
    ['../flows.git', 'local_path'],
    ['https://ci:hunter2@git.example.test/flows.git', 'embedded_credentials'],
    ['https://ci@git.example.test/flows.git', 'embedded_credentials'],
    ['ssh://git:pw@git.example.test/flows.git', 'embedded_credentials'],
    ['git://git.example.test/flows.git', 'unsupported_scheme'],
  ])('refuses %s with 422 (%s) and stores nothing', async (url, reason) => {
    const answer = await call(world, 'dave', 'POST', '/git-repositories', { name: `bad ${reason}`, url });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ code: 'git_url_refused', reason });
    expect(answer.body.errors[0].path).toBe('url');
    expect(
      await knex()('git_repositories')
        .where({ name: `bad ${reason}` })
        .first(),
    ).toBeUndefined();
  });

  it('takes https, ssh and scp-like URLs, and file:// only behind the test setting', () => {
    expect(urlRefusal('https://git.example.test/flows.git', false)).toBeUndefined();
    expect(urlRefusal('ssh://git@git.example.test/flows.git', false)).toBeUndefined();
    expect(urlRefusal('git@git.example.test:team/flows.git', false)).toBeUndefined();
    expect(urlRefusal('file:///srv/flows.git', false)).toBe('local_path');
    expect(urlRefusal('file:///srv/flows.git', true)).toBeUndefined();
  });
});

describe('repositories', () => {
  it('creates, reads, lists, changes; answers the reference, never the token', async () => {
    const id = await createRepository('flows');
    const read = await call(world, 'carol', 'GET', `/git-repositories/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ name: 'flows', default_branch: 'main', auth: { type: 'token', username: 'ci' }, linked_flows: 0 });
    expect(JSON.stringify(read.body)).not.toContain(TOKEN);
    const list = await call(world, 'carol', 'GET', '/git-repositories?q=flo');
    expect(list.body.items.map((r: { id: string }) => r.id)).toContain(id);
    const renamed = await call(world, 'dave', 'PATCH', `/git-repositories/${id}`, { name: 'flows-renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('flows-renamed');
    expect(await call(world, 'dave', 'PATCH', `/git-repositories/${id}`, { name: 'flows' })).toMatchObject({ status: 200 });
    ids.repo = id;
  });

  // Only PostgreSQL has a second session to hold the row while the PATCH waits for it.
  it.skipIf(BACKEND !== 'postgres')(
    'judges what a change changes on the row as locked, so its audit names a field changed meanwhile',
    async () => {
      const id = await createRepository('raced');
      const patched = await behindRowLock(
        knex(),
        'git_repositories',
        id,
        () => call(world, 'dave', 'PATCH', `/git-repositories/${id}`, { name: 'raced-2', default_branch: 'main' }),
        (trx) => trx('git_repositories').where({ id }).update({ default_branch: 'develop' }),
      );
      expect(patched).toMatchObject({ status: 200, body: { name: 'raced-2', default_branch: 'main' } });
      const entry = await knex()('audit_logs').where({ event_type: 'entity.updated', resource_id: id }).first();
      expect([...entry.details_json.changes].sort()).toEqual(['default_branch', 'name']);
    },
  );

  it('refuses a viewer, another organization, a taken name, and a reference that resolves to nothing', async () => {
    expect((await call(world, 'carol', 'POST', '/git-repositories', { name: 'x', url: `${server.url}/flows.git` })).status).toBe(403);
    expect((await call(world, 'bob', 'GET', `/git-repositories/${ids.repo}`, undefined, 'globex')).status).toBe(404);
    expect((await call(world, 'dave', 'GET', `/git-repositories/${UNKNOWN_ID}`)).status).toBe(404);
    const missing = await call(world, 'dave', 'POST', '/git-repositories', {
      name: 'y',
      url: `${server.url}/flows.git`,
      auth: tokenAuth('nope'),
    });
    expect(missing).toMatchObject({ status: 422, body: { code: 'validation_failed' } });
    expect(missing.body.errors[0].path).toBe('auth.secret_ref');
    const taken = await call(world, 'dave', 'POST', '/git-repositories', { name: 'flows', url: `${server.url}/flows.git` });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('conflict');
  });

  it('tests the connection: reachable, branch missing, authentication failed (coded, no secret in the answer)', async () => {
    const good = await call(world, 'dave', 'POST', `/git-repositories/${ids.repo}/test-connection`, {});
    expect(good.body).toMatchObject({ ok: true, reason: 'reachable', branch: 'main' });
    expect(good.body.head_sha).toMatch(/^[0-9a-f]{40}$/);
    const branch = await call(world, 'dave', 'POST', `/git-repositories/${ids.repo}/test-connection`, { branch: 'nope' });
    expect(branch.body).toMatchObject({ ok: false, reason: 'branch_missing' });
    ids.wrongRepo = await createRepository('flows-wrong', tokenAuth('git-wrong'));
    const wrong = await call(world, 'dave', 'POST', `/git-repositories/${ids.wrongRepo}/test-connection`, {});
    expect(wrong.body).toMatchObject({ ok: false, reason: 'authentication_failed' });
    expect(JSON.stringify(wrong.body)).not.toContain(WRONG);
    // The token went as a header, not in the URL.
    expect(server.authorizations).toContain(`Basic ${Buffer.from(`ci:${TOKEN}`).toString('base64')}`);
  });

  it('reads a branch without a checkout: tree and file', async () => {
    const tree = await call(world, 'carol', 'GET', `/git-repositories/${ids.repo}/tree`);
    expect(tree.status).toBe(200);
    expect(tree.body.entries.map((e: { path: string; type: string }) => `${e.type}:${e.path}`).sort()).toEqual([
      'blob:README.md',
      'tree:flows',
    ]);
    const folder = await call(world, 'carol', 'GET', `/git-repositories/${ids.repo}/tree?path=flows`);
    expect(folder.body.entries.map((e: { path: string }) => e.path).sort()).toEqual(['flows/core.yaml', 'flows/edge.yaml']);
    const file = await call(world, 'carol', 'GET', `/git-repositories/${ids.repo}/file?path=README.md`);
    expect(file.body).toMatchObject({ encoding: 'utf-8', content: '# flows\n', size: 8 });
    const missing = await call(world, 'carol', 'GET', `/git-repositories/${ids.repo}/file?path=nope.yaml`);
    expect(missing).toMatchObject({ status: 404, body: { code: 'git_path_not_found' } });
    const branch = await call(world, 'carol', 'GET', `/git-repositories/${ids.repo}/tree?ref=nope`);
    expect(branch).toMatchObject({ status: 404, body: { code: 'git_branch_not_found' } });
    const bad = await call(world, 'carol', 'GET', `/git-repositories/${ids.repo}/file?path=../etc/passwd`);
    expect(bad.status).toBe(422);
    const cache = join(world.daemon.services.config.dataDir, 'git', `${ids.repo}.git`);
    expect((await stat(join(cache, 'HEAD'))).isFile()).toBe(true);
    await expect(stat(join(cache, 'flows'))).rejects.toThrow();
  });

  it('answers a file that is not UTF-8 as base64 of its bytes', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x80]);
    await commitFiles(bare, 'binary', { 'logo.png': bytes }, 'A binary file');
    const file = await call(world, 'carol', 'GET', `/git-repositories/${ids.repo}/file?ref=binary&path=logo.png`);
    expect(file.body).toMatchObject({ encoding: 'base64', size: bytes.length });
    expect(Buffer.from(file.body.content, 'base64').equals(bytes)).toBe(true);
  });

  it('answers a file larger than it reads from git with 422 git_file_too_large, not as missing', async () => {
    await commitFiles(bare, 'big', { 'big.yaml': `x: ${'a'.repeat(17 * 1024 * 1024)}\n` }, 'A big file');
    const tree = await call(world, 'carol', 'GET', `/git-repositories/${ids.repo}/tree?ref=big`);
    expect(tree.body.entries.map((e: { path: string }) => e.path)).toEqual(['big.yaml']);
    const big = await call(world, 'carol', 'GET', `/git-repositories/${ids.repo}/file?ref=big&path=big.yaml`);
    expect(big).toMatchObject({ status: 422, body: { code: 'git_file_too_large', path: 'big.yaml', limit: 16 * 1024 * 1024 } });
  });
});

describe('pull (sync-from-git)', () => {
  it('needs a link; links to a file and pulls it into the draft, recording commit, author and who asked', async () => {
    expect(await call(world, 'dave', 'POST', `/flows/${ids.core}/sync-from-git`, {})).toMatchObject({
      status: 409,
      body: { code: 'flow_not_linked' },
    });
    await link(ids.core!, ids.repo!, 'flows/core.yaml');
    const pulled = await call(world, 'dave', 'POST', `/flows/${ids.core}/sync-from-git`, {});
    expect(pulled.status).toBe(200);
    expect(pulled.body).toMatchObject({
      direction: 'pull',
      outcome: 'updated',
      commit_author: 'Erin Editor <erin@example.test>',
      requested_by: 'sub-dave',
    });
    expect(pulled.body.commit_sha).toBe(execFileSync('git', ['--git-dir', bare, 'rev-parse', 'main'], { encoding: 'utf8' }).trim());
    const flow = await call(world, 'carol', 'GET', `/flows/${ids.core}`);
    expect(flow.body.draft.steps[0].id).toBe('noop');
    expect(flow.body.latest_version).toBe(0);
    const again = await call(world, 'dave', 'POST', `/flows/${ids.core}/sync-from-git`, {});
    expect(again.body.outcome).toBe('unchanged');
    const history = await call(world, 'carol', 'GET', `/flows/${ids.core}/git-sync-history`);
    expect(history.body.items.map((e: { outcome: string }) => e.outcome)).toEqual(['unchanged', 'updated']);
  });

  it('keeps a draft edited since the last sync (409 draft_dirty) unless forced', async () => {
    await commitFiles(bare, 'main', { 'flows/core.yaml': yamlOf(OTHER) }, 'Drop the input');
    const edited = { ...TARGETED, steps: [{ id: 'mine', handler: 'general.noop', config: {} }], target_roles: [] };
    expect((await call(world, 'dave', 'POST', `/flows/${ids.core}/draft`, { definition: edited })).status).toBe(200);
    const refused = await call(world, 'dave', 'POST', `/flows/${ids.core}/sync-from-git`, {});
    expect(refused).toMatchObject({ status: 409, body: { code: 'draft_dirty' } });
    expect((await call(world, 'carol', 'GET', `/flows/${ids.core}`)).body.draft.steps[0].id).toBe('mine');
    const forced = await call(world, 'dave', 'POST', `/flows/${ids.core}/sync-from-git`, { force: true });
    expect(forced.body).toMatchObject({ outcome: 'updated', forced: true });
    expect((await call(world, 'carol', 'GET', `/flows/${ids.core}`)).body.draft.inputs).toEqual([]);
    const history = await call(world, 'carol', 'GET', `/flows/${ids.core}/git-sync-history`);
    expect(history.body.items[1]).toMatchObject({ outcome: 'refused', code: 'draft_dirty' });
  });

  it('refuses invalid YAML with its line, and an invalid definition with its line and JSON path; nothing changes', async () => {
    const before = (await call(world, 'carol', 'GET', `/flows/${ids.core}`)).body.draft;
    await commitFiles(bare, 'main', { 'flows/core.yaml': 'kind: svc/flow\ndefinition:\n  steps: [\n    - oops\n' }, 'Break the YAML');
    const syntax = await call(world, 'dave', 'POST', `/flows/${ids.core}/sync-from-git`, { force: true });
    expect(syntax).toMatchObject({ status: 422, body: { code: 'invalid_flow_yaml', path: '' } });
    expect(syntax.body.line).toBeGreaterThanOrEqual(3);
    const shape = 'kind: svc/flow\nname: core\ndefinition:\n  steps:\n    - id: a\n      handler: general.noop\n      bogus: 1\n';
    await commitFiles(bare, 'main', { 'flows/core.yaml': shape }, 'Unknown member');
    const invalid = await call(world, 'dave', 'POST', `/flows/${ids.core}/sync-from-git`, { force: true });
    expect(invalid).toMatchObject({ status: 422, body: { code: 'invalid_flow_yaml', path: 'definition.steps[0]', line: 5 } });
    // Aliases that expand past the limit (a "billion laughs" file) are refused as invalid, not a 500.
    const laughs = ['kind: svc/flow', 'a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++)
      laughs.push(
        `l${i}: &l${i} [${Array(9)
          .fill(i === 1 ? '*a' : `*l${i - 1}`)
          .join(', ')}]`,
      );
    await commitFiles(bare, 'main', { 'flows/core.yaml': `${laughs.join('\n')}\ndefinition:\n  steps: *l7\n` }, 'Laughs');
    const bomb = await call(world, 'dave', 'POST', `/flows/${ids.core}/sync-from-git`, { force: true });
    expect(bomb).toMatchObject({ status: 422, body: { code: 'invalid_flow_yaml', path: '', line: 1 } });
    expect((await call(world, 'carol', 'GET', `/flows/${ids.core}`)).body.draft).toEqual(before);
    const history = await call(world, 'carol', 'GET', `/flows/${ids.core}/git-sync-history`);
    expect(history.body.items[0]).toMatchObject({ outcome: 'refused', code: 'invalid_flow_yaml' });
    await commitFiles(bare, 'main', { 'flows/core.yaml': yamlOf(TARGETED) }, 'Repair');
  });

  it('commits a new version when the link says so', async () => {
    await link(ids.versioned!, ids.repo!, 'flows/edge.yaml', 'version');
    const pulled = await call(world, 'dave', 'POST', `/flows/${ids.versioned}/sync-from-git`, {});
    expect(pulled.body).toMatchObject({ outcome: 'committed', flow_version: 1 });
    const versions = await call(world, 'carol', 'GET', `/flows/${ids.versioned}/versions`);
    expect(versions.body.items[0].message).toMatch(/^Pulled from git/);
  });

  it('reads a bare repository on disk over file:// (behind the test setting)', async () => {
    const local = await createRepository('on-disk', { type: 'none' }, `file://${bare}`);
    await link(ids.local!, local, 'flows/edge.yaml');
    const pulled = await call(world, 'dave', 'POST', `/flows/${ids.local}/sync-from-git`, {});
    expect(pulled.body.outcome).toBe('updated');
  });

  it("refuses the shared organization's flow (403) and a viewer (403)", async () => {
    expect((await call(world, 'dave', 'PATCH', `/flows/${ids.shared}/git`, { repo_id: ids.repo, path: 'a.yaml' })).body.code).toBe(
      'shared_read_only',
    );
    expect((await call(world, 'carol', 'POST', `/flows/${ids.core}/sync-from-git`, {})).status).toBe(403);
  });
});

describe('yaml-preview and push', () => {
  it('previews the newest version as the YAML push writes, and pushes it with a message naming version and actor', async () => {
    await call(world, 'dave', 'POST', `/flows/${ids.core}/sync-from-git`, { force: true });
    expect((await call(world, 'dave', 'POST', `/flows/${ids.core}/commit`, { message: 'first' })).status).toBe(201);
    const preview = await call(world, 'carol', 'GET', `/flows/${ids.core}/yaml-preview`);
    expect(preview.body).toMatchObject({ version: 1 });
    expect(preview.body.yaml).toMatch(/^# Flow "core"/);
    await commitFiles(bare, 'main', { 'flows/core.yaml': preview.body.yaml }, 'Same as svc');
    await call(world, 'dave', 'POST', `/flows/${ids.core}/sync-from-git`, {});
    const edited = { ...TARGETED, steps: [{ id: 'pushed', handler: 'general.noop', config: {}, target_role: 'routers' }] };
    await call(world, 'dave', 'POST', `/flows/${ids.core}/draft`, { definition: edited });
    await call(world, 'dave', 'POST', `/flows/${ids.core}/commit`, {});
    const pushed = await call(world, 'dave', 'POST', `/flows/${ids.core}/push-to-git`, {});
    expect(pushed.status).toBe(200);
    expect(pushed.body).toMatchObject({ direction: 'push', outcome: 'pushed', flow_version: 2 });
    const yaml = (await call(world, 'carol', 'GET', `/flows/${ids.core}/yaml-preview`)).body.yaml;
    expect(showFile(bare, 'main', 'flows/core.yaml')).toBe(yaml);
    const message = execFileSync('git', ['--git-dir', bare, 'log', '-1', '--format=%B%n%an', 'main'], { encoding: 'utf8' });
    expect(message).toContain('version 2');
    expect(message).toContain('dave');
    expect(showFile(bare, 'main', 'README.md')).toBe('# flows\n');
  });

  it('answers 409 non_fast_forward when the file moved ahead on the remote, and force pushes over it', async () => {
    await commitFiles(bare, 'main', { 'flows/core.yaml': yamlOf(OTHER) }, 'Someone else');
    const refused = await call(world, 'dave', 'POST', `/flows/${ids.core}/push-to-git`, {});
    expect(refused).toMatchObject({ status: 409, body: { code: 'non_fast_forward' } });
    expect(showFile(bare, 'main', 'flows/core.yaml')).toBe(yamlOf(OTHER));
    const forced = await call(world, 'dave', 'POST', `/flows/${ids.core}/push-to-git`, { force: true });
    expect(forced.body).toMatchObject({ outcome: 'pushed', forced: true });
    expect(showFile(bare, 'main', 'flows/core.yaml')).toMatch(/id: pushed/);
    // Another flow's commit on the branch is no conflict.
    await commitFiles(bare, 'main', { 'flows/edge.yaml': yamlOf(TARGETED, 'edge') }, 'Edge changed');
    const unchanged = await call(world, 'dave', 'POST', `/flows/${ids.core}/push-to-git`, {});
    expect(unchanged.body.outcome).toBe('unchanged');
  });

  it('refuses linking to a path git cannot hold (422 validation_failed)', async () => {
    const placed = await seedFlow(knex(), world.ids.acme!, { name: 'placed', versions: [TARGETED] });
    ids.placed = placed;
    for (const path of ['flows//placed.yaml', 'flows/', '.git/config', 'flows/.GIT/placed.yaml']) {
      const refused = await call(world, 'dave', 'PATCH', `/flows/${placed}/git`, { repo_id: ids.repo, path });
      expect([path, refused.status, refused.body.code]).toEqual([path, 422, 'validation_failed']);
    }
    expect(await knex()('flow_git_links').where({ flow_id: placed }).first()).toBeUndefined();
  });

  it('refuses a push where a folder, or a file where a folder belongs, is in the way (409 git_path_conflict)', async () => {
    const placed = ids.placed!;
    const head = () => execFileSync('git', ['--git-dir', bare, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();
    const before = head();
    for (const path of ['flows', 'flows/core.yaml/placed.yaml']) {
      await link(placed, ids.repo!, path);
      const pushed = await call(world, 'dave', 'POST', `/flows/${placed}/push-to-git`, { force: true });
      expect([path, pushed.status, pushed.body.code]).toEqual([path, 409, 'git_path_conflict']);
    }
    expect(head()).toBe(before);
    const history = await call(world, 'carol', 'GET', `/flows/${placed}/git-sync-history`);
    expect(history.body.items[0]).toMatchObject({ direction: 'push', outcome: 'refused', code: 'git_path_conflict' });
    expect((await call(world, 'dave', 'POST', `/flows/${placed}/git/detach`)).status).toBe(204);
  });

  it('refuses a never-committed flow (400 flow_not_committed)', async () => {
    await link(ids.edge!, ids.repo!, 'flows/new.yaml');
    expect((await call(world, 'dave', 'POST', `/flows/${ids.edge}/push-to-git`, {})).body.code).toBe('flow_not_committed');
  });

  it('a wrong token: 502 git_remote_failed authentication_failed, the secret in no answer, audit entry, history or cache file', async () => {
    const flow = await seedFlow(knex(), world.ids.acme!, { name: 'wrong', versions: [TARGETED] });
    await link(flow, ids.wrongRepo!, 'flows/wrong.yaml');
    const push = await call(world, 'dave', 'POST', `/flows/${flow}/push-to-git`, {});
    expect(push).toMatchObject({ status: 502, body: { code: 'git_remote_failed', reason: 'authentication_failed' } });
    const pull = await call(world, 'dave', 'POST', `/flows/${flow}/sync-from-git`, {});
    expect(pull).toMatchObject({ status: 502, body: { code: 'git_remote_failed', reason: 'authentication_failed' } });
    const base64 = Buffer.from(`ci:${WRONG}`).toString('base64');
    const stored = JSON.stringify([
      push.body,
      pull.body,
      await knex()('audit_logs').select('*'),
      await knex()('git_sync_history').select('*'),
      await knex()('git_repositories').select('*'),
    ]);
    for (const secret of [WRONG, TOKEN, base64]) expect(stored).not.toContain(secret);
    const cacheRoot = join(world.daemon.services.config.dataDir, 'git');
    for (const entry of await readdir(cacheRoot, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const text = await readFile(join(entry.parentPath, entry.name), 'latin1');
      expect(text.includes(WRONG) || text.includes(TOKEN)).toBe(false);
    }
    const history = await call(world, 'carol', 'GET', `/flows/${flow}/git-sync-history`);
    expect(history.body.items.map((e: { code: string }) => e.code)).toEqual(['git_remote_failed', 'git_remote_failed']);
  });
});

describe('repository sync, history, detach, delete', () => {
  it('pulls every linked flow, reporting each outcome; force overwrites dirty drafts', async () => {
    const mine = { ...TARGETED, steps: [{ id: 'local_edit', handler: 'general.noop', config: {} }], target_roles: [] };
    await commitFiles(bare, 'main', { 'flows/core.yaml': yamlOf(OTHER) }, 'Upstream edit');
    await call(world, 'dave', 'POST', `/flows/${ids.core}/draft`, { definition: mine });
    const sync = await call(world, 'dave', 'POST', `/git-repositories/${ids.repo}/sync`, {});
    expect(sync.status).toBe(200);
    const byFlow = Object.fromEntries(
      sync.body.items.map((e: { flow_id: string; outcome: string; code: string | null }) => [e.flow_id, e.code ?? e.outcome]),
    );
    expect(byFlow[ids.core!]).toBe('draft_dirty');
    expect(byFlow[ids.edge!]).toBe('git_path_not_found');
    const forced = await call(world, 'dave', 'POST', `/git-repositories/${ids.repo}/sync`, { force: true });
    const core = forced.body.items.find((e: { flow_id: string }) => e.flow_id === ids.core);
    expect(core.outcome).toBe('updated');
    const history = await call(world, 'carol', 'GET', `/git-repositories/${ids.repo}/sync-history?limit=2`);
    expect(history.body.total).toBeGreaterThan(5);
    expect(history.body.items).toHaveLength(2);
  });

  it('refuses deleting a repository flows link to; detaches and deletes', async () => {
    expect((await call(world, 'dave', 'DELETE', `/git-repositories/${ids.wrongRepo}`)).body.code).toBe('conflict');
    // A soft-deleted flow's link does not hold the repository.
    const gone = await seedFlow(knex(), world.ids.acme!, { name: 'gone' });
    await link(gone, ids.wrongRepo!, 'flows/gone.yaml');
    expect((await call(world, 'dave', 'DELETE', `/flows/${gone}`)).status).toBe(204);
    const wrongFlows = await knex()('flow_git_links')
      .join('flows', 'flows.id', 'flow_git_links.flow_id')
      .where({ repo_id: ids.wrongRepo })
      .whereNull('flows.deleted_at')
      .select('flow_id');
    for (const { flow_id } of wrongFlows) expect((await call(world, 'dave', 'POST', `/flows/${flow_id}/git/detach`)).status).toBe(204);
    expect((await call(world, 'dave', 'POST', `/flows/${wrongFlows[0].flow_id}/git/detach`)).body.code).toBe('flow_not_linked');
    expect((await call(world, 'dave', 'DELETE', `/git-repositories/${ids.wrongRepo}`)).status).toBe(204);
    expect((await call(world, 'dave', 'GET', `/git-repositories/${ids.wrongRepo}`)).status).toBe(404);
    expect(await knex()('flow_git_links').where({ flow_id: gone }).first()).toBeUndefined();
    const audits = await knex()('audit_logs').where({ resource_type: 'git_repository', resource_id: ids.wrongRepo }).pluck('event_type');
    expect(audits.sort()).toEqual(['entity.created', 'entity.deleted']);
  });
});
