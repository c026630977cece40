import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, runSvc, type SvcRun } from './helpers/cli.js';
import { HttpForwarder } from './helpers/http-forwarder.js';
import { call, startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * `svc sites` and `svc devices` as built (a subprocess, no terminal) against a real daemon: acme's
 * inventory made by alice (admin), annotated by dave (operator), read by carol (viewer); commons is
 * the shared organization.
 */
let w: World;
let configHome: string;
const ids: Record<string, string> = {};

async function made(who: string, path: string, body: object, org = 'acme'): Promise<string> {
  const answer = await call(w, who, 'POST', path, body, org);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return (answer.body as { id: string }).id;
}

beforeAll(async () => {
  w = await startWorld();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-inventory-'));
  ids.paris = await made('alice', '/sites', { name: 'Paris DC', address: '1 rue de Paris', tags: ['eu'] });
  ids.rack = await made('alice', '/sites', { name: 'Paris Rack 1', parent_id: ids.paris });
  ids.berlin = await made('alice', '/sites', { name: 'Berlin' });
  ids.lab = await made('sam', '/sites', { name: 'Shared Lab' }, 'commons');
  ids.core = await made('alice', '/devices', {
    name: 'core-1',
    hostname: '10.0.0.1',
    platform: 'eos',
    role: 'core',
    site_id: ids.paris,
    tags: ['lab'],
  });
  ids.edge = await made('alice', '/devices', { name: 'edge-1', hostname: '10.0.0.2', platform: 'junos', role: 'edge', site_id: ids.rack });
  ids.fra = await made('alice', '/devices', {
    name: 'fra-1',
    hostname: 'fra-1.example.net',
    platform: 'eos',
    role: 'edge',
    site_id: ids.berlin,
  });
  ids.shared = await made('sam', '/devices', { name: 'lab-1', hostname: '10.9.0.1', platform: 'eos' }, 'commons');
});
afterAll(async () => {
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });
}

const names = async (args: string[]) =>
  (JSON.parse((await ok(svc('carol', [...args, '--json']))).stdout) as { items: { name: string }[] }).items.map((i) => i.name);

describe('svc sites', () => {
  it('lists the organization’s and the shared sites, and prints the tree indented by level', async () => {
    expect(await names(['sites', 'list'])).toEqual(['Berlin', 'Paris DC', 'Paris Rack 1', 'Shared Lab']);
    expect(await names(['sites', 'list', '--q', 'paris'])).toEqual(['Paris DC', 'Paris Rack 1']);
    const tree = await ok(svc('carol', ['sites', 'tree']));
    expect(tree.stdout.split('\n').filter(Boolean)).toEqual([
      `Berlin  ${ids.berlin}`,
      `Paris DC  ${ids.paris}`,
      `  Paris Rack 1  ${ids.rack}`,
      `Shared Lab  ${ids.lab}  (shared)`,
    ]);
  });
});

describe('svc sites create|update|delete', () => {
  it('creates a site under a parent by name, changes only the fields given, clears with "", and soft-deletes it', async () => {
    const created = await ok(svc('alice', ['sites', 'create', 'Lyon', '--parent', 'Paris DC', '--address', '2 quai', '--tag', 'eu']));
    const id = created.stdout.trim();
    expect((await call(w, 'carol', 'GET', `/sites/${id}`)).body).toMatchObject({
      name: 'Lyon',
      parent_id: ids.paris,
      address: '2 quai',
      tags: ['eu'],
    });
    const updated = JSON.parse(
      (await ok(svc('alice', ['sites', 'update', 'Lyon', '--name', 'Lyon DC', '--parent', '', '--clear-tags', '--json']))).stdout,
    );
    expect(updated).toMatchObject({ id, name: 'Lyon DC', parent_id: null, address: '2 quai', tags: [] });
    expect((await svc('alice', ['sites', 'delete', 'Lyon DC'])).code).toBe(2);
    expect(JSON.parse((await ok(svc('alice', ['sites', 'delete', 'Lyon DC', '--yes', '--json']))).stdout)).toEqual({ id, deleted: true });
    expect((await call(w, 'carol', 'GET', `/sites/${id}`)).status).toBe(404);
  });

  it('exits by the refusal: 2 for nothing to change, 3 for an unknown parent, 5 for a viewer, 1 for a site still in use', async () => {
    expect((await svc('alice', ['sites', 'update', 'Berlin'])).code).toBe(2);
    expect((await svc('alice', ['sites', 'update', 'Berlin', '--tag', 'x', '--clear-tags'])).code).toBe(2);
    expect((await svc('alice', ['sites', 'create', 'Nowhere', '--parent', 'Atlantis'])).code).toBe(3);
    expect((await svc('carol', ['sites', 'create', 'Rome'])).code).toBe(5);
    const inUse = await svc('alice', ['sites', 'delete', 'Paris DC', '--yes']);
    expect([inUse.code, inUse.stderr.includes('site_in_use')]).toEqual([1, true]);
    expect(await names(['sites', 'list', '--q', 'Nowhere'])).toEqual([]);
    expect(await names(['sites', 'list', '--q', 'Rome'])).toEqual([]);
  });
});

describe('svc devices create|update|delete', () => {
  it('creates a device at a site by name, keeps the fields an update does not name, and soft-deletes it', async () => {
    const created = await ok(
      svc('alice', ['devices', 'create', 'spine-1', '--hostname', '10.0.1.1', '--platform', 'eos', '--site', 'Berlin', '--tag', 'dc']),
    );
    const id = created.stdout.trim();
    const changed = JSON.parse(
      (
        await ok(
          svc('alice', [
            'devices',
            'update',
            'spine-1',
            '--role',
            'spine',
            '--hostname',
            '',
            '--attributes-json',
            '{"asn":65001}',
            '--json',
          ]),
        )
      ).stdout,
    );
    expect(changed).toMatchObject({
      id,
      name: 'spine-1',
      hostname: null,
      platform: 'eos',
      role: 'spine',
      site_id: ids.berlin,
      tags: ['dc'],
      attributes: { asn: 65001 },
    });
    expect(JSON.parse((await ok(svc('alice', ['devices', 'delete', id, '--yes', '--json']))).stdout)).toEqual({ id, deleted: true });
    expect((await call(w, 'carol', 'GET', `/devices/${id}`)).status).toBe(404);
  });

  it('refuses to overwrite a change made between its read and its write (412, exit 1), keeping that change', async () => {
    const id = (await ok(svc('alice', ['devices', 'create', 'race-1', '--platform', 'eos']))).stdout.trim();
    // A proxy in front of the daemon lets someone else change the device just before the CLI's PUT arrives.
    const proxy = new HttpForwarder(w.url);
    proxy.interleaved.push({
      match: /^PUT \/devices\//,
      work: () => call(w, 'alice', 'PUT', `/devices/${id}`, { name: 'race-1', platform: 'junos' }),
    });
    await proxy.start();
    try {
      const raced = await runSvc(['--server', proxy.url, '--org', 'acme', 'devices', 'update', id, '--role', 'spine'], {
        configHome,
        env: { SVC_TOKEN: w.as.alice!.replace(/^Bearer /, '') },
      });
      expect([raced.code, raced.stderr.includes('precondition_failed')]).toEqual([1, true]);
    } finally {
      await proxy.stop();
    }
    expect((await call(w, 'carol', 'GET', `/devices/${id}`)).body).toMatchObject({ platform: 'junos', role: null });
    await ok(svc('alice', ['devices', 'delete', id, '--yes']));
  });

  it('exits by the refusal: 2 for flags it cannot send, 3 for an unknown site, 5 for a viewer, 1 for a name taken', async () => {
    for (const args of [
      ['devices', 'update', 'core-1'],
      ['devices', 'update', 'core-1', '--attributes-json', '[1]'],
      ['devices', 'update', 'core-1', '--attributes-json', '{'],
      ['devices', 'create', 'x-1', '--tag', 'a', '--clear-tags'],
    ])
      expect({ args, code: (await svc('alice', args)).code }).toEqual({ args, code: 2 });
    expect((await svc('alice', ['devices', 'create', 'x-1', '--site', 'Atlantis'])).code).toBe(3);
    expect((await svc('carol', ['devices', 'create', 'x-1'])).code).toBe(5);
    const taken = await svc('alice', ['devices', 'update', 'fra-1', '--name', 'core-1']);
    expect([taken.code, taken.stderr.includes('conflict')]).toEqual([1, true]);
    expect(await names(['devices', 'list', '--q', 'x-1'])).toEqual([]);
    expect((await call(w, 'carol', 'GET', `/devices/${ids.fra}`)).body).toMatchObject({ name: 'fra-1' });
  });
});

describe('svc devices', () => {
  it('searches by site name, repeated platforms and roles, tags, scope and maintenance', async () => {
    expect(await names(['devices', 'list'])).toEqual(['core-1', 'edge-1', 'fra-1', 'lab-1']);
    expect(await names(['devices', 'list', '--site', 'Paris DC', '--site', ids.rack!])).toEqual(['core-1', 'edge-1']);
    expect(await names(['devices', 'list', '--platform', 'eos', '--role', 'edge'])).toEqual(['fra-1']);
    expect(await names(['devices', 'list', '--platform', 'eos', '--platform', 'junos', '--scope', 'own'])).toEqual([
      'core-1',
      'edge-1',
      'fra-1',
    ]);
    expect(await names(['devices', 'list', '--tag', 'lab'])).toEqual(['core-1']);
    expect(await names(['devices', 'list', '--q', 'example.net'])).toEqual(['fra-1']);
    expect(await names(['devices', 'list', '--sort', '-name', '--limit', '2'])).toEqual(['lab-1', 'fra-1']);
    const table = await ok(svc('carol', ['devices', 'list', '--site', 'Berlin']));
    expect(table.stdout).toMatch(/fra-1\s+fra-1\.example\.net\s+eos\s+edge/);
  });

  it('reads a device by name; an operator sets its maintenance override and local tags, which the search then finds', async () => {
    expect((await ok(svc('carol', ['devices', 'get', 'core-1']))).stdout).toMatch(/platform:\s+eos/);
    const annotated = JSON.parse(
      (await ok(svc('dave', ['devices', 'annotate', 'edge-1', '--maintenance', 'on', '--tag', 'rma', '--tag', 'q4', '--json']))).stdout,
    );
    expect(annotated).toMatchObject({ id: ids.edge, overlay: { maintenance: true, tags: ['rma', 'q4'] } });
    expect(await names(['devices', 'list', '--maintenance', 'on'])).toEqual(['edge-1']);
    expect(await names(['devices', 'list', '--tag', 'rma'])).toEqual(['edge-1']);
    const cleared = JSON.parse(
      (await ok(svc('dave', ['devices', 'annotate', ids.edge!, '--maintenance', 'unset', '--clear-tags', '--json']))).stdout,
    );
    expect(cleared.overlay).toEqual({ maintenance: null, tags: [] });
    expect(await names(['devices', 'list', '--maintenance', 'on'])).toEqual([]);
  });

  it('exits by the refusal: 2 for flags it cannot send, 3 for an unknown name, 5 for a viewer annotating', async () => {
    for (const args of [
      ['devices', 'list', '--maintenance', 'yes'],
      ['devices', 'list', '--scope', 'mine'],
      ['devices', 'annotate', 'core-1'],
      ['devices', 'annotate', 'core-1', '--tag', 'x', '--clear-tags'],
      ['devices', 'annotate', 'core-1', '--maintenance', 'maybe'],
    ])
      expect({ args, code: (await svc('dave', args)).code }).toEqual({ args, code: 2 });
    expect((await svc('carol', ['devices', 'list', '--site', 'Atlantis'])).code).toBe(3);
    expect((await svc('carol', ['devices', 'get', 'no-such-device'])).code).toBe(3);
    expect((await svc('carol', ['devices', 'annotate', 'core-1', '--maintenance', 'on'])).code).toBe(5);
    const bySort = await svc('carol', ['devices', 'list', '--sort', 'serial']);
    expect([bySort.code, bySort.stderr.includes('validation_failed')]).toEqual([1, true]);
  });
});
