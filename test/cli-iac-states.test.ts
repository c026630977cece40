import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, ok, runSvc, type SvcRun } from './helpers/cli.js';
import { call, startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * `svc iac-states` as built (a subprocess, no terminal) against a real daemon: dave (operator) writes
 * and locks states as Terraform would, alice (admin) forces a lock off, carol (viewer) reads names only.
 */
let w: World;
let configHome: string;

const document = (serial: number) => ({ version: 4, serial, lineage: 'lin-1', resources: [{ name: `r${serial}` }] });

beforeAll(async () => {
  w = await startWorld();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-iac-'));
  for (const serial of [1, 2, 3]) expect((await call(w, 'dave', 'POST', '/iac-states/network/state', document(serial))).status).toBe(200);
  expect((await call(w, 'dave', 'POST', '/iac-states/empty/lock', { ID: 'lock-e', Operation: 'OperationTypePlan' })).status).toBe(200);
  expect((await call(w, 'dave', 'DELETE', '/iac-states/empty/lock', { ID: 'lock-e' })).status).toBe(200);
});
afterAll(async () => {
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });
}

describe('svc iac-states', () => {
  it('lists and reads states and versions, pulls a document, rolls back to a version', async () => {
    const page = await json<{ items: { name: string; latest_version: number }[] }>(svc('carol', ['iac-states', 'list', '--json']));
    expect(page.items.map((s) => [s.name, s.latest_version])).toEqual([
      ['empty', 0],
      ['network', 3],
    ]);
    expect((await ok(svc('carol', ['iac-states', 'get', 'network']))).stdout).toMatch(/serial:\s+3/);
    const versions = await json<{ items: { version: number; serial: number }[] }>(
      svc('carol', ['iac-states', 'versions', 'network', '--json']),
    );
    expect(versions.items.map((v) => [v.version, v.serial])).toEqual([
      [3, 3],
      [2, 2],
      [1, 1],
    ]);

    expect(await json(svc('dave', ['iac-states', 'pull', 'network']))).toEqual(document(3));
    expect(await json(svc('dave', ['iac-states', 'pull', 'network', '1']))).toEqual(document(1));
    const none = await ok(svc('dave', ['iac-states', 'pull', 'empty']));
    expect(none.stdout).toBe('');
    // Documents may hold secrets: a viewer sees names and versions, never one.
    expect((await svc('carol', ['iac-states', 'pull', 'network'])).code).toBe(5);

    const rolled = await json(svc('dave', ['iac-states', 'rollback', 'network', '2', '--json']));
    expect(rolled).toMatchObject({ version: 4, serial: 2, source: 'rollback', rolled_back_from: 2 });
    expect(await json(svc('dave', ['iac-states', 'pull', 'network']))).toEqual(document(2));
  });

  it('pulls the document byte for byte: a number beyond 2^53 is not rounded', async () => {
    const raw = '{"version":4,"serial":7,"lineage":"lin-big","outputs":{"id":{"value":12345678901234567890,"type":"number"}}}\n';
    const written = await fetch(`${w.url}/iac-states/bignum/import`, {
      method: 'POST',
      headers: { authorization: w.as.dave!, 'x-org-id': 'acme', 'content-type': 'application/json' },
      body: raw,
    });
    expect(written.status).toBe(201);
    expect((await ok(svc('dave', ['iac-states', 'pull', 'bignum']))).stdout).toBe(raw);
    expect((await ok(svc('dave', ['iac-states', 'pull', 'bignum', '1']))).stdout).toBe(raw);
  });

  it('forces a lock off for an admin only, and a locked state refuses a rollback', async () => {
    expect(
      (await call(w, 'dave', 'POST', '/iac-states/network/lock', { ID: 'lock-1', Operation: 'OperationTypeApply', Who: 'dave@ci' })).status,
    ).toBe(200);
    const got = (await ok(svc('carol', ['iac-states', 'get', 'network']))).stdout;
    expect(got).toMatch(/locked:\s+yes, OperationTypeApply lock-1 by dave@ci/);
    expect(got).toMatch(/held:\s+no/);
    const locked = await svc('dave', ['iac-states', 'rollback', 'network', '1']);
    expect([locked.code, locked.stderr.includes('iac_state_locked')]).toEqual([1, true]);
    expect((await svc('dave', ['iac-states', 'unlock', 'network', '--yes'])).code).toBe(5);
    expect((await svc('alice', ['iac-states', 'unlock', 'network'])).code).toBe(2);
    expect(await json(svc('alice', ['iac-states', 'unlock', 'network', '--yes', '--json']))).toMatchObject({ name: 'network', lock: null });
    const audit = await w.knex()('audit_logs').where({ event_type: 'iac_state.force_unlocked' }).count<{ count: string }[]>('* as count');
    expect(Number(audit[0]!.count)).toBe(1);
  });

  it('exits by the refusal: 2 for a version it cannot send, 3 for an unknown state or version', async () => {
    for (const args of [
      ['iac-states', 'rollback', 'network', 'latest'],
      ['iac-states', 'rollback', 'network', '0'],
      ['iac-states', 'pull', 'network', 'x'],
    ])
      expect({ args, code: (await svc('dave', args)).code }).toEqual({ args, code: 2 });
    expect((await svc('carol', ['iac-states', 'get', 'no-such-state'])).code).toBe(3);
    expect((await svc('dave', ['iac-states', 'pull', 'network', '99'])).code).toBe(3);
  });
});
