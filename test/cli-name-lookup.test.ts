import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, runSvc, type SvcRun } from './helpers/cli.js';
import { call, startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * A name given where the CLI takes an id is looked up by the list route's `q`, which finds every row whose
 * name contains it: here more than a page (500) of such rows sort before the one named exactly.
 */
let w: World;
let configHome: string;
let oslo: string;

beforeAll(async () => {
  w = await startWorld();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-name-lookup-'));
  const crowd = Array.from({ length: 501 }, (_, i) => ({ org_id: w.ids.acme, name: `Greater Oslo ${String(i).padStart(3, '0')}` }));
  await w.knex()('sites').insert(crowd);
  const created = await call(w, 'alice', 'POST', '/sites', { name: 'Oslo' });
  expect(created.status).toBe(201);
  oslo = (created.body as { id: string }).id;
});
afterAll(async () => {
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });
}

describe('names the CLI resolves', () => {
  it('finds the row named exactly on a later page of what q finds', async () => {
    const page = await call(w, 'alice', 'GET', '/sites?q=Oslo&limit=500');
    expect((page.body as { items: { name: string }[] }).items.some((site) => site.name === 'Oslo')).toBe(false);
    const updated = JSON.parse((await ok(svc('alice', ['sites', 'update', 'Oslo', '--address', 'Karl Johans gate 1', '--json']))).stdout);
    expect(updated).toMatchObject({ id: oslo, name: 'Oslo', address: 'Karl Johans gate 1' });
    expect((await svc('alice', ['sites', 'update', 'Oslo East', '--address', 'x'])).code).toBe(3);
  });
});
