import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedUser } from './helpers/seed.js';
import { runSvc } from './helpers/cli.js';

/**
 * The admin command groups run as the built CLI would (a subprocess, no terminal) against a real
 * daemon and the embedded provider. The admin acts through SVC_TOKEN (a minted platform-admin token),
 * the refusals as vera, a viewer of the default organization.
 */
let idp: DevIdp;
let daemon: TestDaemon;
let configHome: string;
let admin: Record<string, string>;
let viewer: Record<string, string>;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer });
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-groups-'));
  const knex = daemon.services.db.knex;
  await seedUser(knex, { sub: 'sub-vera', username: 'vera' }, [{ orgSlug: 'default', role: 'viewer' }]);
  await seedUser(knex, { sub: 'sub-tina', username: 'tina', email: 'tina@example.test' }, [{ orgSlug: 'default', role: 'operator' }]);
  admin = { SVC_TOKEN: await idp.mintAccessToken({ sub: 'sub-root', username: 'root', realmRoles: ['admin'], expiresInSeconds: 600 }) };
  viewer = { SVC_TOKEN: await idp.mintAccessToken({ sub: 'sub-vera', username: 'vera', realmRoles: ['viewer'], expiresInSeconds: 600 }) };
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(args: string[], env: Record<string, string>) {
  return runSvc(['--server', daemon.url, ...args], { configHome, env });
}

/** The line of a table whose first column is `first`, and whether its cells start under the header's columns. */
function row(table: string, first: string): string {
  const line = table.split('\n').find((l) => l.split(/\s{2,}/)[0] === first);
  expect(line, `no row "${first}" in:\n${table}`).toBeDefined();
  return line!;
}
function expectAligned(table: string, line: string, header: string): void {
  const head = table.split('\n')[0]!;
  const at = head.indexOf(header);
  expect(at, `no column ${header}`).toBeGreaterThan(0);
  expect(line[at - 1]).toBe(' ');
  expect(line[at]).not.toBe(' ');
}

/** A refusal from the daemon: exit 5, nothing on stdout, the problem code and request id on stderr. */
function expectForbidden(result: { code: number | null; stdout: string; stderr: string }): void {
  expect(result.code, result.stderr).toBe(5);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain('code: forbidden');
  expect(result.stderr).toMatch(/request id: [\w.:-]{8,}/);
}

describe('svc perms', () => {
  it('lists the action matrix as an aligned table on stdout', async () => {
    const { code, stdout, stderr } = await svc(['perms', 'actions'], admin);
    expect(code, stderr).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^ACTION\s+DEFAULT\s+OVERRIDE\s+EFFECTIVE\s+ROUTES\s+OVERRIDABLE/);
    const line = row(stdout, 'run:view');
    expectAligned(stdout, line, 'EFFECTIVE');
    expect(row(stdout, 'permission:manage')).toMatch(/\bno\b/);
  });

  it('lists the matrix alone without a terminal, and prints the daemon field names with --json', async () => {
    const alone = await svc(['perms'], admin);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stdout).toMatch(/^ACTION\s+DEFAULT/);

    const { code, stdout } = await svc(['perms', 'actions', '--json'], admin);
    expect(code).toBe(0);
    const { actions } = JSON.parse(stdout) as { actions: Record<string, unknown>[] };
    expect(Object.keys(actions[0]!).sort()).toEqual([
      'action',
      'default_policy',
      'effective_policy',
      'overridable',
      'override',
      'routes',
      'updated_at',
      'updated_by',
    ]);
    expect(JSON.parse((await svc(['perms', '--json'], admin)).stdout)).toEqual({ actions });

    const routes = await svc(['perms', 'routes', '--json', '--action', 'run:view'], admin);
    const list = (JSON.parse(routes.stdout) as { routes: Record<string, unknown>[] }).routes;
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((r) => r.action === 'run:view')).toBe(true);
    expect(Object.keys(list[0]!).sort()).toEqual([
      'action',
      'action_override',
      'default_policy',
      'effective_policy',
      'method',
      'path',
      'route_override',
      'scope',
      'source',
    ]);
  });

  it('refuses a viewer with exit 5 and the request id', async () => {
    expectForbidden(await svc(['perms', 'actions'], viewer));
  });

  it('sets and clears an action override end to end, asking for --yes without a terminal', async () => {
    expect((await svc(['api', 'GET', '/runs'], viewer)).code).not.toBe(5);

    const set = await svc(['perms', 'set-action', 'run:view', 'admin'], admin);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain('Set run:view to admin');
    const matrix = JSON.parse((await svc(['perms', 'actions', '--json'], admin)).stdout) as {
      actions: { action: string; override: string | null; effective_policy: string; updated_by: string | null }[];
    };
    expect(matrix.actions.find((a) => a.action === 'run:view')).toMatchObject({
      override: 'admin',
      effective_policy: 'admin',
      updated_by: 'root',
    });
    expect(row((await svc(['perms', 'routes', '--source', 'action_override'], admin)).stdout, 'GET')).toContain('action_override');
    expectForbidden(await svc(['api', 'GET', '/runs'], viewer));

    const unconfirmed = await svc(['perms', 'clear-action', 'run:view'], admin);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');

    const cleared = await svc(['perms', 'clear-action', 'run:view', '--yes', '--json'], admin);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout)).toEqual({ action: 'run:view', previous: 'admin', policy: null });
    expect((await svc(['api', 'GET', '/runs'], viewer)).code).not.toBe(5);
  });

  it('sets and clears a route override, and shows the rule of a refused override', async () => {
    const set = await svc(['perms', 'set-route', 'get', '/runs', 'operator', '--json'], admin);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ method: 'GET', path: '/runs', previous: null, policy: 'operator' });
    expect((await svc(['perms', 'clear-route', 'GET', '/runs', '--yes'], admin)).stderr).toContain(
      'Cleared the override of GET /runs (was operator)',
    );

    const refused = await svc(['perms', 'set-action', 'permission:manage', 'viewer'], admin);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('code: override_rule_violation');
    expect(refused.stderr).toContain('rule: permission_manage_pinned');
  });

  it('explains a decision for a user', async () => {
    const { code, stdout, stderr } = await svc(
      ['perms', 'explain', 'GET', '/orgs/{org_ref}/members', '--user', 'vera', '--in-org', 'default'],
      admin,
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^decision:\s+allowed$/m);
    expect(stdout).toMatch(/^organization:\s+default \(role viewer\)$/m);
    const json = JSON.parse(
      (await svc(['perms', 'explain', 'POST', '/orgs', '--realm-roles', 'viewer', '--json'], admin)).stdout,
    ) as Record<string, unknown>;
    expect(json).toMatchObject({ route: { method: 'POST', path: '/orgs', action: 'org:manage' }, allowed: false, scope: 'platform' });
  });

  it('refuses the interactive view without a terminal and names the commands to use', async () => {
    const { code, stderr } = await svc(['perms', 'browse'], admin);
    expect(code).toBe(2);
    expect(stderr).toContain('svc perms actions');
    expect(stderr).toContain('svc perms set-action');
  });
});

describe('svc orgs', () => {
  it('creates, lists, shows, updates and deletes an organization', async () => {
    const created = await svc(['orgs', 'create', 'acme', '--name', 'Acme Corp'], admin);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/Created organization acme \(/);

    const list = await svc(['orgs', 'list'], admin);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^SLUG\s+NAME\s+ROLE\s+ACCESS\s+ACTIVE/);
    const line = row(list.stdout, 'acme');
    expect(line).toContain('Acme Corp');
    expect(line).toContain('platform_admin');
    expectAligned(list.stdout, line, 'ACCESS');

    const updated = await svc(['orgs', 'update', 'acme', '--description', 'the acme one', '--json'], admin);
    expect(JSON.parse(updated.stdout)).toMatchObject({ slug: 'acme', description: 'the acme one' });

    const shown = await svc(['orgs', 'get', 'acme'], admin);
    expect(shown.stdout).toMatch(/^description:\s+the acme one$/m);

    expect((await svc(['orgs', 'delete', 'acme'], admin)).code).toBe(2);
    const deleted = await svc(['orgs', 'delete', 'acme', '--yes'], admin);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(row((await svc(['orgs', 'list'], admin)).stdout, 'default')).toBeDefined();
    expect((await svc(['orgs', 'list'], admin)).stdout).not.toMatch(/^acme /m);
  });

  it('prints the API page and organization with --json', async () => {
    const list = await svc(['orgs', 'list', '--json'], admin);
    const page = JSON.parse(list.stdout) as { items: Record<string, unknown>[]; total: number; limit: number; offset: number };
    expect(page).toMatchObject({ total: expect.any(Number), limit: 100, offset: 0 });
    expect(page.items[0]).toMatchObject({ slug: 'default', is_default: true, access: expect.stringMatching(/^(member|platform_admin)$/) });
    expect(page.items[0]).toHaveProperty('role');
    expect(page.items[0]).toHaveProperty('source');
    const one = JSON.parse((await svc(['orgs', 'get', 'default', '--json'], admin)).stdout) as Record<string, unknown>;
    expect(Object.keys(one).sort()).toEqual([
      'created_at',
      'description',
      'id',
      'is_active',
      'is_default',
      'is_shared',
      'name',
      'settings',
      'slug',
      'updated_at',
    ]);
  });

  it('refuses a viewer creating an organization with exit 5 and the request id', async () => {
    expectForbidden(await svc(['orgs', 'create', 'nope', '--name', 'Nope'], viewer));
  });
});

describe('svc members', () => {
  it('adds, lists, changes the role of and removes a member (by username)', async () => {
    expect((await svc(['orgs', 'create', 'globex', '--name', 'Globex'], admin)).code).toBe(0);
    const added = await svc(['--org', 'globex', 'members', 'add', 'tina', '--role', 'operator'], admin);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('Added tina to globex as operator');

    const list = await svc(['members', 'list', 'globex'], admin);
    expect(list.stdout.split('\n')[0]).toMatch(/^USERNAME\s+ROLE\s+SOURCE\s+EMAIL\s+USER ID$/);
    expect(row(list.stdout, 'tina')).toMatch(/^tina\s+operator\s+manual\s+tina@example\.test\s+[0-9a-f-]{36}$/);

    const changed = await svc(['members', 'set-role', 'tina', 'admin', '--org', 'globex', '--json'], admin);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ username: 'tina', role: 'admin', source: 'manual' });

    expect((await svc(['members', 'remove', 'tina', '--org', 'globex'], admin)).code).toBe(2);
    expect((await svc(['members', 'remove', 'tina', '--org', 'globex', '--yes'], admin)).code).toBe(0);
    expect((await svc(['members', 'list', '--org', 'globex'], admin)).stdout).not.toContain('tina');
  });

  it('prints the API page with --json', async () => {
    const { code, stdout } = await svc(['members', 'list', '--org', 'default', '--json'], admin);
    expect(code).toBe(0);
    const page = JSON.parse(stdout) as { items: Record<string, unknown>[]; total: number };
    const vera = page.items.find((m) => m.username === 'vera');
    expect(vera).toMatchObject({ role: 'viewer', source: 'manual' });
    expect(Object.keys(vera!).sort()).toEqual(['created_at', 'email', 'role', 'source', 'updated_at', 'user_id', 'username']);
  });

  it('refuses a viewer adding a member with exit 5 and the request id', async () => {
    expectForbidden(await svc(['members', 'add', 'tina', '--org', 'default'], viewer));
  });

  it('needs an organization', async () => {
    const { code, stderr } = await svc(['members', 'list'], admin);
    expect(code).toBe(2);
    expect(stderr).toContain('--org');
  });
});

describe('svc idp-mappings', () => {
  it('adds, lists, previews, updates and removes a mapping', async () => {
    const added = await svc(['idp-mappings', 'add', '--org', 'default', '--value', '/Network-Ops', '--role', 'operator', '--json'], admin);
    expect(added.code, added.stderr).toBe(0);
    const mapping = JSON.parse(added.stdout) as Record<string, unknown>;
    expect(mapping).toMatchObject({ claim: 'groups', value: '/Network-Ops', role: 'operator', is_active: true });
    expect(Object.keys(mapping).sort()).toEqual(['claim', 'created_at', 'id', 'is_active', 'org_id', 'role', 'updated_at', 'value']);

    const list = await svc(['idp-mappings', 'list', '--org', 'default'], admin);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+CLAIM\s+VALUE\s+ROLE\s+ACTIVE$/);
    expect(row(list.stdout, mapping.id as string)).toMatch(/\sgroups\s+\/Network-Ops\s+operator\s+yes$/);

    const preview = await svc(
      ['idp-mappings', 'preview', '--org', 'default', '--user', 'vera', '--group', '/Network-Ops', '--group', 'Other'],
      admin,
    );
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toMatch(/^KIND\s+ORG\s+ROLE/);
    const previewJson = JSON.parse(
      (await svc(['idp-mappings', 'preview', '--org', 'default', '--user', 'vera', '--group', '/Network-Ops', '--json'], admin)).stdout,
    ) as Record<string, unknown>;
    expect(previewJson).toMatchObject({ user: { username: 'vera' }, claim: 'groups', hidden_changes: 0 });
    expect(previewJson.changes).toEqual(
      expect.arrayContaining([expect.objectContaining({ org: expect.objectContaining({ slug: 'default' }) })]),
    );

    const updated = await svc(['idp-mappings', 'update', mapping.id as string, '--org', 'default', '--no-active', '--json'], admin);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id: mapping.id, is_active: false, role: 'operator' });
    expect(JSON.parse((await svc(['idp-mappings', 'list', '--org', 'default', '--active', '--json'], admin)).stdout)).toEqual({
      items: [],
    });

    expect((await svc(['idp-mappings', 'remove', mapping.id as string, '--org', 'default'], admin)).code).toBe(2);
    expect((await svc(['idp-mappings', 'remove', mapping.id as string, '--org', 'default', '--yes'], admin)).code).toBe(0);
    expect((await svc(['idp-mappings', 'remove', mapping.id as string, '--org', 'default', '--yes'], admin)).code).toBe(3);
  });

  it('refuses a viewer listing mappings with exit 5 and the request id', async () => {
    expectForbidden(await svc(['idp-mappings', 'list', '--org', 'default'], viewer));
  });
});

describe('svc tokens', () => {
  it('prints the plaintext of a new token once on stdout, with a warning on stderr', async () => {
    const { code, stdout, stderr } = await svc(
      ['tokens', 'create', 'ci-deploy', '--user', 'tina', '--org', 'default', '--expires-in-days', '7'],
      admin,
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^svc_pat_[\w-]{43}\n$/);
    expect(stderr).toContain('will not be shown again');
    const me = await svc(['whoami', '--json'], { SVC_TOKEN: stdout.trim() });
    expect(JSON.parse(me.stdout)).toMatchObject({ username: 'tina' });
  });

  it('lists tokens as a table and as JSON, revokes one and all of a user', async () => {
    const list = await svc(['tokens', 'list', '--user', 'tina'], admin);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+USER\s+ORG\s+EXPIRES/);
    const json = JSON.parse((await svc(['tokens', 'list', '--user', 'tina', '--json'], admin)).stdout) as {
      items: Record<string, unknown>[];
    };
    const token = json.items.find((t) => t.name === 'ci-deploy')!;
    expect(Object.keys(token).sort()).toEqual([
      'created_at',
      'created_by',
      'expires_at',
      'id',
      'last_used_at',
      'name',
      'org',
      'revoked_at',
      'token_prefix',
      'user',
    ]);
    expect(row(list.stdout, token.id as string)).toMatch(/\sci-deploy\s+svc_pat_\S+\s+tina\s+default\s/);

    expect((await svc(['tokens', 'revoke', token.id as string], admin)).code).toBe(2);
    expect((await svc(['tokens', 'revoke', token.id as string, '--yes'], admin)).code).toBe(0);
    const revoked = JSON.parse((await svc(['tokens', 'list', '--user', 'tina', '--include-revoked', '--json'], admin)).stdout) as {
      items: { id: string; revoked_at: string | null }[];
    };
    expect(revoked.items.find((t) => t.id === token.id)?.revoked_at).not.toBeNull();

    await svc(['tokens', 'create', 'second', '--user', 'tina'], admin);
    const all = await svc(['tokens', 'revoke-user', 'tina', '--yes', '--json'], admin);
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual({ revoked: 1 });
  });

  it('refuses a viewer listing tokens with exit 5 and the request id', async () => {
    expectForbidden(await svc(['tokens', 'list'], viewer));
  });
});
