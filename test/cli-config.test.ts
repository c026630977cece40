import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, type SvcRun } from './helpers/cli.js';
import { startWorld, type World } from './helpers/webhooks-fixtures.js';

/** `svc config export|plan|apply` as built (a subprocess, no terminal) against a real daemon, as the platform admin. */
let w: World;
let dir: string;

beforeAll(async () => {
  w = await startWorld();
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-config-'));
  await w
    .knex()('variables')
    .insert({ org_id: w.ids.acme, name: 'region', type: 'string', value_json: JSON.stringify('eu-west-1') });
});
afterAll(async () => {
  await w?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, ...args], { configHome: dir, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });
}

describe('svc config', () => {
  it('exports a bundle, plans an edit of it as a readable diff, applies the plan', async () => {
    const exported = await svc('root', ['config', 'export', '--org', 'acme', '--family', 'variables']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('value: eu-west-1');
    const file = join(dir, 'bundle.yaml');
    await writeFile(file, exported.stdout.replace('eu-west-1', 'eu-central-1'));

    const planned = await svc('root', ['config', 'plan', file]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('~ variables "region" will be updated in place');
    expect(planned.stdout).toContain('~ value: "eu-west-1" -> "eu-central-1"');
    expect(planned.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    const planId = /Saved plan ([0-9a-f-]{36})/.exec(planned.stderr)![1]!;

    const asJson = await svc('root', ['config', 'plan', file, '--json']);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ summary: { change: 1 } });

    const applied = await svc('root', ['config', 'apply', planId]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('~ variables "region"');
    expect(applied.stdout).toContain('1 changed');
    const row = await w.knex()('variables').where({ org_id: w.ids.acme, name: 'region' }).first();
    expect(row.value_json).toBe('eu-central-1');
  });

  it('exits 1 naming the code for an invalid bundle, 5 for a non-admin', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'version: 1\nvariables: [\n');
    const invalid = await svc('root', ['config', 'plan', file]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('bundle_invalid');
    const forbidden = await svc('alice', ['config', 'export', '--org', 'acme']);
    expect(forbidden.code).toBe(5);
  });
});
