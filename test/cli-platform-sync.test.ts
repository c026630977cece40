import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, type SvcRun } from './helpers/cli.js';
import { createProfile, variablesBundle, variablesOf } from './helpers/platform-sync-fixtures.js';
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

  it('exits 5 for an organization admin and 3 for an unknown profile', async () => {
    expect((await svc('alice', ['platform-sync', 'profiles'])).code).toBe(5);
    expect((await svc('root', ['platform-sync', 'runs', '00000000-0000-4000-8000-000000000000'])).code).toBe(3);
  });
});
