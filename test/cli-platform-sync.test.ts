import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, type SvcRun } from './helpers/cli.js';
import { createProfile, setVariable, variablesBundle, variablesOf } from './helpers/platform-sync-fixtures.js';
import { startWorld, type World } from './helpers/webhooks-fixtures.js';

/** `svc platform-sync` as built (a subprocess, no terminal) against a real daemon: root (platform admin) syncs, alice is refused. */
let w: World;
let configHome: string;

beforeAll(async () => {
  w = await startWorld();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-platform-sync-'));
});
afterAll(async () => {
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

const svc = (who: string, args: string[]): Promise<SvcRun> =>
  runSvc(['--server', w.url, ...args], { configHome, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });

describe('svc platform-sync', () => {
  it('lists profiles, plans one (its text, the apply line on stderr), applies the plan and lists the run', async () => {
    const id = await createProfile(w, {
      name: 'acme-cli',
      source: { kind: 'bundle', bundle: variablesBundle({ region: 'eu-west-1' }) },
      target: { scope: 'org', org: 'acme' },
    });
    const listed = await svc('root', ['platform-sync', 'profiles']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('acme-cli');
    expect(JSON.parse((await svc('root', ['platform-sync', 'profiles', '--json'])).stdout).total).toBe(1);

    const planned = await svc('root', ['platform-sync', 'plan', id]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('region');
    const planId = /apply \S+ (\S+)/.exec(planned.stderr)![1]!;

    const applied = await svc('root', ['platform-sync', 'apply', id, planId, '--json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ status: 'succeeded', counts: { created: 1 } });
    expect(await variablesOf(w.knex(), w.ids.acme!)).toEqual({ region: 'eu-west-1' });

    const again = await svc('root', ['platform-sync', 'apply', id, planId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('stale_plan');
    const runs = await svc('root', ['platform-sync', 'runs', id]);
    expect(runs.stdout).toContain('succeeded');
    expect(runs.stdout).toContain('stale_plan');
  });

  // Sixteen CLI processes one after another: more than the default 30 s on a loaded two-core host.
  it('makes a profile from a bundle file, resolves a conflict, grants, lists and revokes an authorization, and deletes the profile', async () => {
    const bundleFile = join(configHome, 'bundle.yaml');
    await writeFile(bundleFile, variablesBundle({ zone: 'a' }));
    const created = await svc('root', [
      'platform-sync',
      'create',
      'acme-file',
      '--bundle-file',
      bundleFile,
      '--target-org',
      'acme',
      '--family',
      'variables',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const profile = JSON.parse(created.stdout) as { id: string; source: { kind: string }; target: { org: string } };
    expect(profile).toMatchObject({ source: { kind: 'bundle' }, target: { org: 'acme' } });

    const first = await svc('root', ['platform-sync', 'plan', profile.id]);
    const firstPlan = /apply \S+ (\S+)/.exec(first.stderr)![1]!;
    expect((await svc('root', ['platform-sync', 'apply', profile.id, firstPlan])).code).toBe(0);
    // Changed here and in the source: a conflict, which the CLI resolves.
    await setVariable(w.knex(), w.ids.acme!, 'zone', 'local');
    await writeFile(bundleFile, variablesBundle({ zone: 'b' }));
    const resourced = await svc('root', ['platform-sync', 'update', profile.id, '--bundle-file', bundleFile]);
    expect(resourced.code, resourced.stderr).toBe(0);
    const planned = await svc('root', ['platform-sync', 'plan', profile.id]);
    const changeId = /! conflict variables zone: (\S+) \(unresolved\)/.exec(planned.stdout)![1]!;
    const planId = /apply \S+ (\S+)/.exec(planned.stderr)![1]!;
    expect((await svc('root', ['platform-sync', 'apply', profile.id, planId])).stderr).toContain('sync_conflict');
    expect((await svc('root', ['platform-sync', 'resolve', profile.id, changeId, 'sideways'])).code).toBe(2);
    const resolved = await svc('root', ['platform-sync', 'resolve', profile.id, changeId, 'take_source', '--json']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(JSON.parse(resolved.stdout)).toMatchObject({ change_id: changeId, resolution: 'take_source' });
    expect((await svc('root', ['platform-sync', 'apply', profile.id, planId])).code).toBe(0);
    expect((await variablesOf(w.knex(), w.ids.acme!)).zone).toBe('b');

    const granted = await svc('root', ['platform-sync', 'authorize', profile.id, '--reason', 'CHG-7', '--expires-in', '600', '--json']);
    expect(granted.code, granted.stderr).toBe(0);
    const grant = JSON.parse(granted.stdout) as { id: string; state: string };
    expect(grant.state).toBe('active');
    const active = await svc('root', ['platform-sync', 'authorizations', profile.id, '--state', 'active', '--json']);
    expect((JSON.parse(active.stdout) as { items: { id: string }[] }).items.map((a) => a.id)).toEqual([grant.id]);
    expect((await svc('root', ['platform-sync', 'revoke', profile.id, grant.id, '--reason', 'done'])).code).toBe(0);
    const revoked = await svc('root', ['platform-sync', 'authorizations', profile.id, '--state', 'revoked', '--json']);
    expect((JSON.parse(revoked.stdout) as { total: number }).total).toBe(1);

    expect((await svc('root', ['platform-sync', 'delete', profile.id])).code).toBe(2);
    expect((await svc('root', ['platform-sync', 'delete', profile.id, '--yes'])).code).toBe(0);
    expect((await svc('root', ['platform-sync', 'runs', profile.id])).code).toBe(3);
  }, 90_000);

  it('changes a profile: name, description cleared, every family, pruning; nothing to change is exit 2', async () => {
    const bundleFile = join(configHome, 'to-change.yaml');
    await writeFile(bundleFile, variablesBundle({ zone: 'c' }));
    const created = await svc('root', [
      ...['platform-sync', 'create', 'to-change', '--bundle-file', bundleFile, '--target-org', 'acme'],
      ...['--family', 'variables', '--prune', '--description', 'old', '--json'],
    ]);
    expect(created.code, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const changed = await svc('root', [
      ...['platform-sync', 'update', id, '--name', 'changed', '--description', ''],
      ...['--all-families', '--no-prune', '--json'],
    ]);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ id, name: 'changed', description: null, families: [], prune: false });
    expect((await svc('root', ['platform-sync', 'update', id])).code).toBe(2);
    expect((await svc('root', ['platform-sync', 'update', id, '--family', 'variables', '--all-families'])).code).toBe(2);
    expect((await svc('root', ['platform-sync', 'update', id, '--target-org', 'acme', '--platform'])).code).toBe(2);
    expect((await svc('alice', ['platform-sync', 'update', id, '--name', 'mine'])).code).toBe(5);
  });

  it('refuses a profile with two sources or no target as a usage error, sending nothing', async () => {
    const twoSources = await svc('root', ['platform-sync', 'create', 'x', '--bundle-file', '-', '--file-id', 'f', '--platform']);
    expect(twoSources.code).toBe(2);
    const noTarget = await svc('root', ['platform-sync', 'create', 'x', '--file-id', '00000000-0000-4000-8000-000000000000']);
    expect(noTarget.code).toBe(2);
    const noToken = await svc('root', ['platform-sync', 'create', 'x', '--from-url', 'https://peer.example', '--platform']);
    expect(noToken.code).toBe(2);
    expect(JSON.parse((await svc('root', ['platform-sync', 'profiles', '--q', 'x', '--json'])).stdout).total).toBe(0);
  });

  it('exits 5 for an organization admin and 3 for an unknown profile', async () => {
    expect((await svc('alice', ['platform-sync', 'profiles'])).code).toBe(5);
    expect((await svc('root', ['platform-sync', 'runs', '00000000-0000-4000-8000-000000000000'])).code).toBe(3);
  });
});
