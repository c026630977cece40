import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BARE, seedFlow } from './helpers/runs-fixtures.js';
import { createSchedule, fireDue, runsOfSchedule, startScheduleWorld, type ScheduleWorld } from './helpers/schedules-fixtures.js';
import { call } from './helpers/webhooks-fixtures.js';

let world: ScheduleWorld;
let flowId: string;
const knex = () => world.knex();

beforeAll(async () => {
  // The default retention (30 days) is what is shown: no setting named.
  // The test runs the maintenance pass itself, with its clock: the timer's passes would run it first.
  world = await startScheduleWorld({ SERVICE_MAINTENANCE_TIMER_ENABLED: 'false' }, '2026-01-05T12:00:00Z');
  flowId = await seedFlow(knex(), world.ids.acme!, { name: 'bare', versions: [BARE] });
});
afterAll(() => world?.close());

/** A daily schedule fired at 10:00 UTC on each of `days` (January 2026), then paused so the pass fires nothing more. */
async function firedOn(days: number[]): Promise<string> {
  world.clock.set('2026-01-05T12:00:00Z');
  const { id } = await createSchedule(world, { flow_id: flowId, cron: '0 10 * * *', timezone: 'UTC' });
  for (const day of days) {
    world.clock.set(`2026-01-${String(day).padStart(2, '0')}T10:00:00Z`);
    await fireDue(world.url);
  }
  expect((await call(world, 'dave', 'PATCH', `/schedules/${id}`, { enabled: false })).status).toBe(200);
  return id as string;
}

const firesOf = async (id: string): Promise<string[]> =>
  (await knex()('schedule_fires').where({ schedule_id: id }).orderBy('due_at').pluck('due_at')).map((at: Date) =>
    new Date(at).toISOString(),
  );

describe('schedule_fires retention (maintenance job schedule_fires.retention)', () => {
  it("deletes fires older than SERVICE_SCHEDULE_FIRE_RETENTION_DAYS, keeps each schedule's newest and the runs they made", async () => {
    const daily = await firedOn([6, 7, 8, 20]);
    const once = await firedOn([6]);
    expect(await firesOf(daily)).toHaveLength(4);
    const runsBefore = (await runsOfSchedule(world, daily)).length;
    expect(runsBefore).toBe(4);

    // 30 days after 9 January noon: the fires of the 6th, 7th and 8th are past the retention, the 20th's is not.
    world.clock.set('2026-02-08T12:00:00Z');
    const pass = await world.daemon.maintenance.runner.runAll('tick');
    expect(pass.jobs.find((job) => job.name === 'schedule_fires.retention')).toMatchObject({
      outcome: 'ok',
      summary: { deleted: 3, retention_days: 30, before: '2026-01-09T12:00:00.000Z' },
    });
    expect(await firesOf(daily)).toEqual(['2026-01-20T10:00:00.000Z']);
    // Past the retention too, but the schedule's newest fire: kept.
    expect(await firesOf(once)).toEqual(['2026-01-06T10:00:00.000Z']);
    expect(await runsOfSchedule(world, daily)).toHaveLength(runsBefore);

    // A pass later finds nothing more to delete.
    const again = await world.daemon.maintenance.runner.runAll('tick');
    expect(again.jobs.find((job) => job.name === 'schedule_fires.retention')).toMatchObject({ outcome: 'ok', summary: { deleted: 0 } });
  });
});
