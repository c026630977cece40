import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecretsModule, type SecretsModule } from '../src/daemon/domains/secrets/module.js';
import { json, ok, runSvc, type SvcRun } from './helpers/cli.js';
import { startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * `svc secrets` as built (a subprocess, no terminal) against a real daemon: alice (admin of acme)
 * manages, carol (viewer) reads, bob is another organization's admin. What reached the backend is read
 * through the daemon's own resolver, since no answer carries a value.
 */
let w: World;
let secrets: SecretsModule;
let work: string;

beforeAll(async () => {
  w = await startWorld();
  secrets = await openSecretsModule(w.daemon.services);
  work = await mkdtemp(join(tmpdir(), 'svc-cli-secrets-'));
});
afterAll(async () => {
  await w?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function svc(who: string, args: string[], options: { env?: Record<string, string>; stdin?: string } = {}): Promise<SvcRun> {
  const env = { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, ''), ...options.env };
  return runSvc(['--server', w.url, '--org', who === 'bob' ? 'globex' : 'acme', ...args], {
    configHome: join(work, 'config'),
    env,
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
  });
}
const secretRows = async () => (await w.knex()('secrets').count<{ count: string }[]>('* as count'))[0]!.count;

describe('svc secrets', () => {
  it('creates from the environment, a file and stdin, merges changes by name, and never prints a value', async () => {
    const keyFile = join(work, 'id_ed25519');
    await writeFile(keyFile, '-----BEGIN KEY-----\nabc\n-----END KEY-----\n');
    const created = await json(
      svc(
        'alice',
        [
          'secrets',
          'set',
          'net/core',
          '--from-env',
          'username=NET_USER',
          '--from-file',
          `ssh_key=${keyFile}`,
          '--from-stdin',
          'password',
          '--description',
          'core routers',
          '--json',
        ],
        { env: { NET_USER: 'netops' }, stdin: 's3cr=t pw\n' },
      ),
    );
    expect(created).toMatchObject({ name: 'net/core', description: 'core routers', keys: ['password', 'ssh_key', 'username'] });
    // stdin loses its final newline (echo adds one); a file is taken as it is.
    expect(await secrets.resolver.readFolder(created.id)).toEqual({
      username: 'netops',
      password: 's3cr=t pw',
      ssh_key: '-----BEGIN KEY-----\nabc\n-----END KEY-----\n',
    });

    // By name again: a merge, the keys not named are kept.
    const changed = await json(
      svc('alice', ['secrets', 'set', 'net/core', '--from-env', 'password=ROTATED', '--remove-key', 'ssh_key', '--json'], {
        env: { ROTATED: 'pw-2' },
      }),
    );
    expect(changed).toMatchObject({ id: created.id, keys: ['password', 'username'] });
    expect(await secrets.resolver.readFolder(created.id)).toEqual({ username: 'netops', password: 'pw-2' });

    const list = await ok(svc('carol', ['secrets', 'list']));
    expect(list.stdout).toContain('builtin://orgs/acme/secrets/net/core');
    const page = await json<{ items: { id: string }[]; total: number }>(svc('carol', ['secrets', 'list', '--json']));
    expect(page.items.map((s) => s.id)).toEqual([created.id]);
    const shown = await ok(svc('carol', ['secrets', 'get', 'net/core']));
    expect(shown.stdout).toMatch(/keys:\s+password, username/);
    for (const output of [list, shown]) expect(output.stdout + output.stderr).not.toMatch(/pw-2|netops/);
    expect(await json(svc('carol', ['secrets', 'get', created.id, '--json']))).toMatchObject({ name: 'net/core' });

    expect(await json(svc('alice', ['secrets', 'delete', 'net/core', '--yes', '--json']))).toEqual({ id: created.id, deleted: true });
    expect((await svc('carol', ['secrets', 'get', 'net/core'])).code).toBe(3);
  });

  it('refuses before sending anything: 2 for a flag it cannot use, with no row written', async () => {
    await ok(svc('alice', ['secrets', 'set', 'fixed', '--from-env', 'k=V'], { env: { V: 'v' } }));
    const before = await secretRows();
    const refusals: [string[], Record<string, string>?][] = [
      [['secrets', 'set', 'x', '--from-env', 'k=UNSET_VARIABLE']],
      [['secrets', 'set', 'x', '--from-env', 'novalue']],
      [['secrets', 'set', 'x', '--from-env', '1bad=V'], { V: 'v' }],
      [['secrets', 'set', 'x', '--from-env', 'k=V', '--from-file', `k=${join(work, 'f')}`], { V: 'v' }],
      [['secrets', 'set', 'x', '--from-file', `k=${join(work, 'no-such-file')}`]],
      [['secrets', 'set', 'x', '--from-file', `k=${work}`]],
      [['secrets', 'set', 'x', '--remove-key', 'k']],
      [['secrets', 'set', 'fixed', '--from-env', 'k=V', '--remove-key', 'k'], { V: 'v' }],
      [['secrets', 'set', 'fixed', '--path', 'elsewhere']],
      [['secrets', 'set', 'fixed']],
      [['secrets', 'delete', 'fixed']],
    ];
    for (const [args, env] of refusals) {
      const result = await svc('alice', args, env ? { env } : {});
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
    }
    const big = join(work, 'big');
    await writeFile(big, Buffer.alloc(64 * 1024 + 1, 0x61));
    expect((await svc('alice', ['secrets', 'set', 'x', '--from-file', `k=${big}`])).code).toBe(2);
    const binary = join(work, 'binary');
    await writeFile(binary, Buffer.from([0xff, 0xfe, 0x00]));
    expect((await svc('alice', ['secrets', 'set', 'x', '--from-file', `k=${binary}`])).code).toBe(2);
    expect(await secretRows()).toBe(before);
  });

  it('exits by the refusal: 5 for a viewer, 3 for another organization’s secret, 1 for a name the daemon refuses', async () => {
    const viewer = await svc('carol', ['secrets', 'set', 'viewer-try', '--from-env', 'k=V'], { env: { V: 'v' } });
    expect(viewer.code).toBe(5);
    const mine = await json(svc('alice', ['secrets', 'set', 'acme-only', '--from-env', 'k=V', '--json'], { env: { V: 'v' } }));
    expect((await svc('bob', ['secrets', 'get', mine.id])).code).toBe(3);
    expect((await svc('bob', ['secrets', 'get', 'acme-only'])).code).toBe(3);
    const refused = await svc('alice', ['secrets', 'set', 'bad name', '--from-env', 'k=V'], { env: { V: 'v' } });
    expect([refused.code, refused.stderr.includes('validation_failed')]).toEqual([1, true]);
  });

  it('takes the backend by name for a new secret and refuses an unknown one', async () => {
    const created = await json(
      svc('alice', ['secrets', 'set', 'by-backend', '--backend', 'Built-in', '--from-env', 'k=V', '--json'], { env: { V: 'v' } }),
    );
    expect(created.backend).toMatchObject({ type: 'builtin' });
    expect((await svc('alice', ['secrets', 'set', 'other', '--backend', 'no-such', '--from-env', 'k=V'], { env: { V: 'v' } })).code).toBe(
      2,
    );
  });
});
