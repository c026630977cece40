import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, runSvc, type SvcRun } from './helpers/cli.js';
import { call, startWorld, type World } from './helpers/webhooks-fixtures.js';

/** `svc audit` as built (a subprocess, no terminal) against a real daemon: root (platform admin) reads, alice (an organization's admin) may not. */
let w: World;
let configHome: string;
let variableId: string;

beforeAll(async () => {
  w = await startWorld();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-audit-'));
  const created = await call(w, 'alice', 'POST', '/variables', { name: 'mtu', type: 'number', value: 1500 }, 'acme');
  expect(created.status).toBe(201);
  variableId = (created.body as { id: string }).id;
  for (const value of [9000, 9100, 9200])
    expect((await call(w, 'alice', 'PATCH', `/variables/${variableId}`, { value }, 'acme')).status).toBe(200);
});
afterAll(async () => {
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, ...args], { configHome, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });
}

interface Entry {
  id: string;
  event_type: string;
  actor_username: string | null;
  resource_type: string | null;
  resource_id: string | null;
}
const page = async (args: string[]) =>
  JSON.parse((await ok(svc('root', ['audit', 'list', ...args, '--json']))).stdout) as { items: Entry[]; next_cursor: string | null };

describe('svc audit', () => {
  it('lists by resource, actor and event type, pages by the cursor it prints, and reads one entry', async () => {
    const all = await page(['--resource', `variable/${variableId}`]);
    expect(all.items.map((e) => e.event_type)).toEqual(['entity.updated', 'entity.updated', 'entity.updated', 'entity.created']);
    expect(all.items.every((e) => e.actor_username === 'alice')).toBe(true);
    expect((await page(['--resource', 'variable', '--event-type', 'entity.created', '--actor', 'alice'])).items.map((e) => e.id)).toEqual([
      all.items[3]!.id,
    ]);
    expect((await page(['--resource', `variable/${variableId}`, '--actor', 'bob'])).items).toEqual([]);

    const first = await svc('root', ['audit', 'list', '--resource', `variable/${variableId}`, '--limit', '3']);
    expect(first.code).toBe(0);
    expect(first.stdout.trim().split('\n')).toHaveLength(4);
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeDefined();
    const rest = await page(['--resource', `variable/${variableId}`, '--limit', '3', '--cursor', cursor!]);
    expect([rest.items.map((e) => e.id), rest.next_cursor]).toEqual([[all.items[3]!.id], null]);

    const one = await ok(svc('root', ['audit', 'get', all.items[0]!.id]));
    expect(one.stdout).toMatch(/event:\s+entity\.updated/);
    expect(JSON.parse((await ok(svc('root', ['audit', 'get', all.items[0]!.id, '--json']))).stdout)).toMatchObject({
      id: all.items[0]!.id,
    });
  });

  it('exits by the refusal: 2 for flags it cannot send, 1 for a filter the daemon refuses, 5 for an organization admin, 3 for an unknown entry', async () => {
    for (const args of [
      ['--resource', '/x'],
      ['--resource', 'flow/'],
      ['--event-type', 'a,b'],
      ['--limit', '0'],
    ])
      expect({ args, code: (await svc('root', ['audit', 'list', ...args])).code }).toEqual({ args, code: 2 });
    const refused = await svc('root', ['audit', 'list', '--since', 'yesterday']);
    expect([refused.code, refused.stderr.includes('validation_failed')]).toEqual([1, true]);
    expect((await svc('alice', ['--org', 'acme', 'audit', 'list'])).code).toBe(5);
    expect((await svc('root', ['audit', 'get', '00000000-0000-4000-8000-000000000000'])).code).toBe(3);
  });
});
