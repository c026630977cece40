import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, ok, runSvc, type SvcRun } from './helpers/cli.js';
import { call, startWorld, type World } from './helpers/webhooks-fixtures.js';

/** `svc variables` as built (a subprocess, no terminal) against a real daemon: alice (admin) manages, carol (viewer) reads. */
let w: World;
let configHome: string;

beforeAll(async () => {
  w = await startWorld();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-variables-'));
  expect((await call(w, 'sam', 'POST', '/variables', { name: 'dns', type: 'string', value: '1.1.1.1' }, 'commons')).status).toBe(201);
});
afterAll(async () => {
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });
}

describe('svc variables', () => {
  it('sets (creates, then changes by name), lists, gets and deletes, values parsed by type', async () => {
    const created = await json(svc('alice', ['variables', 'set', 'mtu', '1500', '--type', 'number', '--json']));
    expect(created).toMatchObject({ name: 'mtu', type: 'number', value: 1500 });
    // The variable's own type reads the new value: no --type needed.
    const changed = await json(svc('alice', ['variables', 'set', 'mtu', '9000', '--description', 'jumbo', '--json']));
    expect(changed).toMatchObject({ id: created.id, value: 9000, description: 'jumbo' });
    await ok(svc('alice', ['variables', 'set', 'limits', '{"vlans":[10,20]}', '--type', 'json']));
    await ok(svc('alice', ['variables', 'set', 'site_code', 'FRA']));

    const page = await json<{ items: { name: string; value: unknown; shared: boolean }[]; total: number }>(
      svc('carol', ['variables', 'list', '--json']),
    );
    expect(page.items.map((v) => [v.name, v.value, v.shared])).toEqual([
      ['dns', '1.1.1.1', true],
      ['limits', { vlans: [10, 20] }, false],
      ['mtu', 9000, false],
      ['site_code', 'FRA', false],
    ]);
    const table = await ok(svc('carol', ['variables', 'list', '--type', 'json']));
    expect(table.stdout).toContain('limits');
    expect(table.stdout).not.toContain('site_code');
    expect((await ok(svc('carol', ['variables', 'get', 'mtu']))).stdout).toMatch(/value:?\s+9000/);
    expect(await json(svc('carol', ['variables', 'get', created.id, '--json']))).toMatchObject({ name: 'mtu' });

    expect(await json(svc('alice', ['variables', 'delete', 'mtu', '--yes', '--json']))).toEqual({ id: created.id, deleted: true });
    expect((await svc('carol', ['variables', 'get', 'mtu'])).code).toBe(3);
  });

  it('exits by the refusal: 2 for a value its type cannot read, 1 for the daemon refusing it, 5 for a viewer or the shared variable, 3 for an unknown name', async () => {
    const notNumber = await svc('alice', ['variables', 'set', 'n', 'ten', '--type', 'number']);
    expect([notNumber.code, notNumber.stdout]).toEqual([2, '']);
    expect((await svc('alice', ['variables', 'set', 'b', 'yes', '--type', 'boolean'])).code).toBe(2);
    expect((await svc('alice', ['variables', 'set', 'j', '{oops', '--type', 'json'])).code).toBe(2);
    expect((await svc('alice', ['variables', 'set', 'x', '1', '--type', 'secret'])).code).toBe(2);
    const badRef = await svc('alice', ['variables', 'set', 'ref', 'plain', '--type', 'secret_ref']);
    expect(badRef.code).toBe(1);
    expect(badRef.stderr).toContain('validation_failed');
    const badName = await svc('alice', ['variables', 'set', '1bad', 'v']);
    expect(badName.code).toBe(1);
    expect((await svc('carol', ['variables', 'set', 'viewer_try', 'v'])).code).toBe(5);
    const shared = await svc('alice', ['variables', 'delete', 'dns', '--yes']);
    expect(shared.code).toBe(5);
    expect(shared.stderr).toContain('shared_read_only');
    expect((await svc('alice', ['variables', 'delete', 'nope', '--yes'])).code).toBe(3);
    expect((await svc('alice', ['variables', 'delete', 'dns'])).code).toBe(2);
  });
});
