import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, ok, runSvc, type SvcRun } from './helpers/cli.js';
import { call, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

/**
 * `svc secret-backends` as built (a subprocess, no terminal) against a real daemon: root (platform
 * admin) manages, vera (realm viewer) reads, alice (admin of acme, no realm role) is refused. A backend
 * of a type this build cannot serve is written to the table directly: the API refuses to create one,
 * and it is the only backend whose test fails.
 */
let w: World;
let work: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  w = await startWorld();
  work = await mkdtemp(join(tmpdir(), 'svc-cli-secret-backends-'));
  for (const who of ['root', 'alice']) tokens[who] = w.as[who]!.replace(/^Bearer /, '');
  tokens.vera = await w.idp.mintAccessToken({ sub: 'sub-vera', username: 'vera', email: 'vera@example.test', realmRoles: ['viewer'] });
});
afterAll(async () => {
  await w?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function svc(who: string, args: string[], stdin?: string): Promise<SvcRun> {
  return runSvc(['--server', w.url, 'secret-backends', ...args], {
    configHome: join(work, 'config'),
    env: { SVC_TOKEN: tokens[who]! },
    ...(stdin === undefined ? {} : { stdin }),
  });
}
const backend = (name: string) => w.knex()('secret_backends').where({ name }).first();
/** The cells of a table's line whose first cell is `first`. */
const cells = (table: string, first: string) =>
  table
    .split('\n')
    .map((line) => line.split(/\s{2,}/))
    .find((line) => line[0] === first);

describe('svc secret-backends', () => {
  it('lists the types, with vault known but not served by this build', async () => {
    const table = (await ok(svc('vera', ['types']))).stdout;
    expect(cells(table, 'TYPE')).toEqual(['TYPE', 'NAME', 'AVAILABLE', 'DESCRIPTION']);
    expect(cells(table, 'builtin')?.[2]).toBe('yes');
    expect(cells(table, 'vault')?.[2]).toBe('no');
    const answer = await json<{ items: { type: string; available: boolean }[] }>(svc('vera', ['types', '--json']));
    expect(answer.items.map((t) => [t.type, t.available])).toEqual([
      ['builtin', true],
      ['vault', false],
    ]);
  });

  it('lists and reads the backends, the built-in one by its name (blanks around it ignored) or id', async () => {
    const builtin = await backend('Built-in');
    const table = (await ok(svc('vera', ['list']))).stdout;
    expect(cells(table, builtin.id)).toEqual([builtin.id, 'Built-in', 'builtin', 'builtin', 'yes', '0']);
    const page = await json(svc('vera', ['list', '--json']));
    expect(page).toMatchObject({ total: 1, limit: 50, offset: 0, items: [{ id: builtin.id, is_builtin: true, is_default: true }] });

    const shown = (await ok(svc('vera', ['get', 'Built-in']))).stdout;
    expect(shown).toMatch(new RegExp(`^id:\\s+${builtin.id}$`, 'm'));
    expect(shown).toMatch(/^is_builtin:\s+true$/m);
    expect(await json(svc('vera', ['get', builtin.id, '--json']))).toEqual(page.items[0]);
    // Names are stored trimmed, so a pasted name with blanks around it names the same backend.
    expect(await json(svc('vera', ['get', ' Built-in  ', '--json']))).toEqual(page.items[0]);
  });

  it('creates a backend: its id on stdout, --json the backend; a type this build cannot serve or a bad config is refused', async () => {
    const created = await ok(svc('root', ['create', 'Lab store', '--scheme', 'lab']));
    const row = await backend('Lab store');
    expect(created.stdout).toBe(`${row.id}\n`);
    expect(row).toMatchObject({ type: 'builtin', scheme: 'lab', is_default: false });

    const other = await json(svc('root', ['create', 'Scratch', '--scheme', 'scratch', '--config', '-', '--json'], '{}'));
    expect(other).toMatchObject({ name: 'Scratch', type: 'builtin', scheme: 'scratch', config: {}, is_builtin: false });

    const vault = await svc('root', [
      ...['create', 'Vault', '--type', 'vault', '--scheme', 'vault'],
      ...['--config', '{"address":"https://vault.example.test","token":"builtin://orgs/acme/secrets/vault"}'],
    ]);
    expect([vault.code, vault.stdout, vault.stderr.includes('unsupported_backend_type')]).toEqual([1, '', true]);
    const configured = await svc('root', ['create', 'X', '--scheme', 'x', '--config', '{"a":1}']);
    expect([configured.code, configured.stderr.includes('validation_failed')]).toEqual([1, true]);
    expect((await svc('root', ['create', 'X', '--scheme', 'x', '--config', 'not json'])).code).toBe(2);
    expect((await svc('root', ['create', 'X'])).code).toBe(2);
    expect(await w.knex()('secret_backends').whereIn('name', ['Vault', 'X'])).toEqual([]);
  });

  it('renames a backend and moves the default mark; no change flag exits 2', async () => {
    const lab = await backend('Lab store');
    const renamed = await ok(svc('root', ['update', 'Lab store', '--name', 'Lab']));
    expect(renamed.stdout).toBe(`${lab.id}\n`);
    expect((await backend('Lab')).id).toBe(lab.id);

    expect(await json(svc('root', ['update', 'Lab', '--default', '--json']))).toMatchObject({ id: lab.id, is_default: true });
    expect((await backend('Built-in')).is_default).toBe(false);
    await ok(svc('root', ['update', 'Built-in', '--default']));
    expect((await backend('Built-in')).is_default).toBe(true);

    const none = await svc('root', ['update', 'Lab']);
    expect([none.code, none.stdout]).toEqual([2, '']);
  });

  it('tests a backend: exit 0 when it works, exit 1 with the outcome still on stdout when it does not', async () => {
    const passed = await ok(svc('root', ['test', 'Lab']));
    expect(passed.stdout).toMatch(/^ok:\s+yes$/m);
    expect(await json(svc('root', ['test', 'Lab', '--json']))).toMatchObject({ ok: true });

    await w
      .knex()('secret_backends')
      .insert({
        name: 'Old vault',
        type: 'vault',
        scheme: 'oldvault',
        config_json: { address: 'https://vault.example.test', token: 'builtin://orgs/acme/secrets/vault' },
      });
    const failed = await svc('root', ['test', 'Old vault']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^ok:\s+no$/m);
    expect(failed.stdout).toMatch(/^detail:\s+\S/m);
    const failedJson = await svc('root', ['test', 'Old vault', '--json']);
    expect([failedJson.code, JSON.parse(failedJson.stdout).ok]).toEqual([1, false]);
    // Browsing it fails on the daemon's side: 503 secret_backend_unavailable.
    const browsed = await svc('root', ['items', 'Old vault']);
    expect([browsed.code, browsed.stdout, browsed.stderr.includes('secret_backend_unavailable')]).toEqual([6, '', true]);
  });

  it('lists the folders a backend holds by location, names only', async () => {
    const lab = await backend('Lab');
    const secret = await call(w, 'alice', 'POST', '/secrets', { name: 'switch', backend_id: lab.id, values: { password: 'pw-9f8e' } });
    expect(secret.status).toBe(201);

    const table = await ok(svc('root', ['items', 'Lab']));
    expect(cells(table.stdout, 'orgs/acme/secrets/switch')).toEqual(['orgs/acme/secrets/switch', 'acme', 'switch']);
    expect(table.stdout + table.stderr).not.toContain('pw-9f8e');
    expect(await json(svc('root', ['items', lab.id, '--prefix', 'orgs/acme/', '--json']))).toMatchObject({
      total: 1,
      items: [{ location: 'orgs/acme/secrets/switch', org_slug: 'acme', path: 'switch' }],
    });
    const elsewhere = await ok(svc('root', ['items', 'Lab', '--prefix', 'orgs/globex/']));
    expect(elsewhere.stdout).toBe('');
    expect((await svc('root', ['items', 'Lab', '--limit', '0'])).code).toBe(2);

    await call(w, 'alice', 'DELETE', `/secrets/${secret.body.id}`);
  });

  it('deletes a backend only when asked with --yes; the built-in one is refused by the daemon', async () => {
    const scratch = await backend('Scratch');
    const unasked = await svc('root', ['delete', 'Scratch']);
    expect([unasked.code, unasked.stdout]).toEqual([2, '']);
    expect(await backend('Scratch')).toBeDefined();

    expect(await json(svc('root', ['delete', 'Scratch', '--yes', '--json']))).toEqual({ id: scratch.id, deleted: true });
    expect(await backend('Scratch')).toBeUndefined();
    const builtin = await svc('root', ['delete', 'Built-in', '--yes']);
    expect([builtin.code, builtin.stderr.includes('conflict')]).toEqual([1, true]);
    expect(await backend('Built-in')).toBeDefined();
  });

  it('exits 3 for a backend name or id that names none', async () => {
    for (const args of [
      ['get', 'No such backend'],
      ['get', UNKNOWN_ID],
      ['update', 'No such backend', '--name', 'Y'],
      ['delete', 'No such backend', '--yes'],
      ['test', 'No such backend'],
      ['items', 'No such backend'],
    ]) {
      const result = await svc('root', args);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 3, stdout: '' });
    }
  });

  it('refuses a caller without the realm role with exit 5: an organization admin reads nothing, a realm viewer changes nothing', async () => {
    const before = await w.knex()('secret_backends').orderBy('name').select('id', 'name', 'is_default');
    for (const [who, args] of [
      ['alice', ['list']],
      ['alice', ['types']],
      ['vera', ['create', 'Mine', '--scheme', 'mine']],
      ['vera', ['update', 'Lab', '--name', 'Mine']],
      ['vera', ['delete', 'Lab', '--yes']],
      ['vera', ['test', 'Lab']],
      ['vera', ['items', 'Lab']],
    ] as const) {
      const result = await svc(who, [...args]);
      expect({ who, args, code: result.code, stdout: result.stdout }).toEqual({ who, args, code: 5, stdout: '' });
    }
    expect(await w.knex()('secret_backends').orderBy('name').select('id', 'name', 'is_default')).toEqual(before);
  });
});
