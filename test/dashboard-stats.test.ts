import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardStatsAnswer } from '../src/shared/api/dashboard.js';
import { hoursBefore, seedApproval, seedRun, seedSchedule } from './helpers/dashboard-fixtures.js';
import { call, seedFlow, startWorld, type World } from './helpers/webhooks-fixtures.js';

/** Every read of the dashboard sees this instant: 12:30 UTC, so the 24h window's buckets are 13:00 yesterday .. 12:00 today. */
const NOW = new Date('2026-11-27T12:30:00.000Z');
let world: World;
const ids: Record<string, string> = {};

beforeAll(async () => {
  world = await startWorld({}, { clock: () => NOW });
  const knex = world.knex();
  const { acme, globex } = world.ids as Record<string, string>;
  ids.deploy = await seedFlow(knex, acme!, { name: 'deploy' });
  ids.backup = await seedFlow(knex, acme!, { name: 'backup' });
  ids.audit = await seedFlow(knex, acme!, { name: 'audit' });
  ids.other = await seedFlow(knex, globex!, { name: 'other' });
  const run = (flow: string, status: string, hoursAgo: number, extra: { deleted?: boolean } = {}) =>
    seedRun(knex, { orgId: acme!, flowId: ids[flow], flowName: flow, status, createdAt: hoursBefore(NOW, hoursAgo), ...extra });
  // In the 24h window: deploy 3 succeeded + 1 failed, backup 1 succeeded + 1 cancelled + 1 running, audit 1 queued.
  await run('deploy', 'succeeded', 0.25); // 12:15, the current bucket
  await run('deploy', 'succeeded', 0.4);
  await run('deploy', 'failed', 1); // 11:30
  await run('deploy', 'succeeded', 5); // 07:30
  await run('backup', 'succeeded', 23); // 13:30 yesterday, the first bucket
  await run('backup', 'cancelled', 2);
  const running = await run('backup', 'running', 3);
  await run('audit', 'queued', 0.1);
  // Outside the 24h window, inside 7d: counted by 7d only; its awaiting run counts now whatever the window.
  await run('audit', 'failed', 30);
  const waiting = await run('audit', 'awaiting_approval', 48);
  // Never counted: a deleted run, and another organization's runs.
  await run('deploy', 'failed', 1, { deleted: true });
  for (let i = 0; i < 5; i += 1)
    await seedRun(knex, { orgId: globex!, flowId: ids.other, status: 'failed', createdAt: hoursBefore(NOW, 1) });
  await seedApproval(knex, acme!, waiting, 'pending');
  await seedApproval(knex, acme!, running, 'approved');
  const globexRun = await seedRun(knex, { orgId: globex!, flowId: ids.other, status: 'awaiting_approval', createdAt: hoursBefore(NOW, 1) });
  await seedApproval(knex, globex!, globexRun, 'pending');
  await seedSchedule(knex, acme!, ids.deploy!, { enabled: true });
  await seedSchedule(knex, acme!, ids.deploy!, { enabled: false });
  await seedSchedule(knex, acme!, ids.backup!, { enabled: true, deleted: true });
  await seedSchedule(knex, globex!, ids.other!, { enabled: true });
});
afterAll(() => world?.close());

const stats = async (query = '', who = 'carol', org = 'acme') => {
  const answer = await call(world, who, 'GET', `/dashboard/stats${query}`, undefined, org);
  return answer as { status: number; body: DashboardStatsAnswer & { code?: string } };
};

describe('GET /dashboard/stats', () => {
  it("counts the window's runs of the active organization by state, with the success rate", async () => {
    const { status, body } = await stats();
    expect(status).toBe(200);
    expect(body.org_id).toBe(world.ids.acme);
    expect(body.window).toEqual({ name: '24h', bucket: 'hour', from: '2026-11-26T13:00:00.000Z', to: NOW.toISOString() });
    expect(body.runs.total).toBe(8);
    expect(body.runs.by_state).toEqual({ queued: 1, running: 1, paused: 0, awaiting_approval: 0, succeeded: 4, failed: 1, cancelled: 1 });
    expect(body.runs.success_rate).toBe(0.8);
    expect(body.runs.active).toEqual({ queued: 1, running: 1, paused: 0, awaiting_approval: 1 });
  });

  it('answers every hourly bucket of the window, empty ones included, each by state', async () => {
    const { body } = await stats();
    const buckets = body.runs.over_time;
    expect(buckets).toHaveLength(24);
    expect(buckets[0]).toMatchObject({ start: '2026-11-26T13:00:00.000Z', total: 1, by_state: { succeeded: 1 } });
    expect(buckets.at(-1)).toMatchObject({ start: '2026-11-27T12:00:00.000Z', total: 3, by_state: { succeeded: 2, queued: 1 } });
    expect(buckets.find((b) => b.start === '2026-11-27T11:00:00.000Z')).toMatchObject({ total: 1, by_state: { failed: 1 } });
    expect(buckets.find((b) => b.start === '2026-11-27T06:00:00.000Z')).toMatchObject({ total: 0 });
    expect(buckets.reduce((sum, b) => sum + b.total, 0)).toBe(body.runs.total);
  });

  it('ranks the busiest flows by runs in the window, each with its success rate', async () => {
    const { body } = await stats('?top=2');
    expect(body.busiest_flows).toEqual([
      { flow_id: ids.deploy, flow_name: 'deploy', runs: 4, succeeded: 3, failed: 1, success_rate: 0.75 },
      { flow_id: ids.backup, flow_name: 'backup', runs: 3, succeeded: 1, failed: 0, success_rate: 1 },
    ]);
  });

  it('counts pending approvals and live enabled schedules of the organization only', async () => {
    const { body } = await stats();
    expect(body.pending_approvals).toBe(1);
    expect(body.active_schedules).toBe(1);
  });

  it('lists the last finished runs and audit entries, newest first, bounded by recent', async () => {
    const { body } = await stats('?recent=2', 'root');
    expect(body.recent.runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect(body.recent.runs[0]!.finished_at > body.recent.runs[1]!.finished_at).toBe(true);
    expect(body.recent.audit).not.toBeNull();
    expect(body.recent.audit!.length).toBeLessThanOrEqual(2);
  });

  it('gives audit entries only to whom the audit log answers (audit_log:view), null to the others', async () => {
    for (const who of ['carol', 'dave', 'alice', 'root']) {
      const auditLog = await call(world, who, 'GET', '/audit-logs?limit=1', undefined, 'acme');
      expect([200, 403]).toContain(auditLog.status);
      const { status, body } = await stats('', who);
      expect(status, who).toBe(200);
      if (auditLog.status === 403) expect(body.recent.audit, who).toBeNull();
      else expect(Array.isArray(body.recent.audit), who).toBe(true);
    }
    // The viewer and the platform admin stand on either side.
    expect((await stats('', 'carol')).body.recent.audit).toBeNull();
    expect((await stats('', 'root')).body.recent.audit).toEqual(expect.any(Array));
  });

  it('widens to daily buckets over 7 days', async () => {
    const { body } = await stats('?window=7d');
    expect(body.window).toMatchObject({ bucket: 'day', from: '2026-11-21T00:00:00.000Z' });
    expect(body.runs.over_time).toHaveLength(7);
    expect(body.runs.total).toBe(10);
    expect(body.runs.by_state).toMatchObject({ failed: 2, awaiting_approval: 1 });
    expect(body.runs.over_time.at(-1)).toMatchObject({ start: '2026-11-27T00:00:00.000Z', total: 7 });
  });

  it("shows another organization only its own runs: a viewer of acme never sees globex's", async () => {
    const { body } = await stats('', 'bob', 'globex');
    expect(body.runs.by_state).toMatchObject({ failed: 5, awaiting_approval: 1, succeeded: 0 });
    expect(body.busiest_flows.map((f) => f.flow_id)).toEqual([ids.other]);
    expect(body.pending_approvals).toBe(1);
    const refused = await stats('', 'carol', 'globex');
    expect(refused.status).toBe(403);
  });

  it('refuses an unknown window and a top out of range (422)', async () => {
    for (const query of ['?window=1y', '?top=0', '?top=51', '?recent=x', '?other=1']) {
      const { status, body } = await stats(query);
      expect([query, status, body.code]).toEqual([query, 422, 'validation_failed']);
    }
  });
});
