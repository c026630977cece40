import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgHealthAnswer } from '../src/shared/api/dashboard.js';
import { hoursBefore, seedRun } from './helpers/dashboard-fixtures.js';
import { call, seedFlow, startWorld, type World } from './helpers/webhooks-fixtures.js';

const NOW = new Date('2026-11-27T12:30:00.000Z');
let world: World;

beforeAll(async () => {
  world = await startWorld({}, { clock: () => NOW });
  const knex = world.knex();
  const { acme, globex } = world.ids as Record<string, string>;
  const flow = await seedFlow(knex, acme!, { name: 'deploy' });
  await seedFlow(knex, acme!, { name: 'gone', deleted: true });
  for (const [status, hoursAgo] of [
    ['succeeded', 1],
    ['succeeded', 2],
    ['failed', 3],
    ['queued', 0.2],
    ['running', 0.3],
    ['failed', 30],
  ] as const) {
    await seedRun(knex, { orgId: acme!, flowId: flow, status, createdAt: hoursBefore(NOW, hoursAgo) });
  }
  await seedRun(knex, { orgId: globex!, status: 'failed', createdAt: hoursBefore(NOW, 50) });
});
afterAll(() => world?.close());

const orgHealth = (query = '', who = 'root') => call(world, who, 'GET', `/dashboard/org-health${query}`);

describe('GET /dashboard/org-health', () => {
  it("answers each organization's members, flows, window runs, failure rate, queue and last activity", async () => {
    const { status, body } = (await orgHealth()) as { status: number; body: OrgHealthAnswer };
    expect(status).toBe(200);
    const acme = body.items.find((item) => item.slug === 'acme')!;
    expect(acme).toMatchObject({
      org_id: world.ids.acme,
      members: 3,
      flows: 1,
      runs: 5,
      failed: 1,
      queued_now: 1,
      running_now: 1,
      last_activity_at: hoursBefore(NOW, 0.2).toISOString(),
    });
    expect(acme.failure_rate).toBeCloseTo(1 / 3);
    const globex = body.items.find((item) => item.slug === 'globex')!;
    expect(globex).toMatchObject({ members: 1, runs: 0, failed: 0, failure_rate: null, queued_now: 0 });
    expect(body.items.map((item) => item.slug)).toEqual([...body.items.map((item) => item.slug)].sort());
  });

  it('pages and filters the organizations', async () => {
    const page = await orgHealth('?limit=1&offset=1');
    expect(page.body.items).toHaveLength(1);
    expect(page.body.total).toBeGreaterThanOrEqual(3);
    const filtered = await orgHealth('?q=glob&window=7d');
    expect(filtered.body.items.map((item: { slug: string }) => item.slug)).toEqual(['globex']);
    expect(filtered.body.items[0].runs).toBe(1);
  });

  it('is refused to an organization admin who is no platform admin (403)', async () => {
    const refused = await orgHealth('', 'alice');
    expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
  });
});
