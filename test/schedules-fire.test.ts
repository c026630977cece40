import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BARE, DEFINITION, seedDevice, seedFlow } from './helpers/runs-fixtures.js';
import { createSchedule, fireDue, internal, runsOfSchedule, startScheduleWorld, type ScheduleWorld } from './helpers/schedules-fixtures.js';
import { call, count } from './helpers/webhooks-fixtures.js';

const CATCH_UP_MAX = 3;

let world: ScheduleWorld;
const ids: Record<string, string> = {};
const knex = () => world.knex();

beforeAll(async () => {
  world = await startScheduleWorld({ SERVICE_SCHEDULER_CATCH_UP_MAX: String(CATCH_UP_MAX) });
  ids.bare = await seedFlow(knex(), world.ids.acme!, { name: 'bare', versions: [BARE] });
  ids.flow = await seedFlow(knex(), world.ids.acme!, { name: 'upgrade', versions: [DEFINITION] });
  ids.r1 = await seedDevice(knex(), world.ids.acme!, 'r1');
});
afterAll(() => world?.close());

const nextFireAt = async (id: string): Promise<string | null> => (await call(world, 'carol', 'GET', `/schedules/${id}`)).body.next_fire_at;

/** Moves the clock to each next fire time of `id` up to `until` and fires what is due there; the due times whose runs were written. */
async function fireThrough(id: string, until: string): Promise<string[]> {
  for (;;) {
    const next = await nextFireAt(id);
    if (next === null || next > new Date(until).toISOString()) break;
    world.clock.set(next);
    await fireDue(world.url);
  }
  return dueTimesOf(id);
}

/** Fires what is due now; the report on `id`. */
async function fireFor(id: string) {
  return (await fireDue(world.url)).find((answer) => answer.body.schedule_id === id)!;
}

async function dueTimesOf(id: string): Promise<string[]> {
  return (await runsOfSchedule(world, id)).map((run) => (run.trigger_details_json as { due_at: string }).due_at);
}

async function schedule(cron: string, timezone: string, from: string, extra: Record<string, unknown> = {}): Promise<string> {
  world.clock.set(from);
  return (await createSchedule(world, { flow_id: ids.bare, cron, timezone, ...extra })).id as string;
}

describe('daylight saving time, with an injected clock', () => {
  it('Europe/Berlin spring-forward: 02:30 does not exist on 29 March; the fire comes at 03:00 local, once', async () => {
    const id = await schedule('30 2 * * *', 'Europe/Berlin', '2026-03-27T12:00:00Z');
    expect(await fireThrough(id, '2026-03-30T12:00:00Z')).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
  });

  it('Europe/Berlin fall-back: 02:30 happens twice on 25 October; the daily fire comes once', async () => {
    const id = await schedule('30 2 * * *', 'Europe/Berlin', '2026-10-23T12:00:00Z');
    expect(await fireThrough(id, '2026-10-26T12:00:00Z')).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('Europe/Berlin fall-back: an hourly schedule fires every real hour through the repeated hour', async () => {
    const id = await schedule('30 * * * *', 'Europe/Berlin', '2026-10-24T22:45:00Z');
    expect(await fireThrough(id, '2026-10-25T03:30:00Z')).toEqual([
      '2026-10-24T23:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:30:00.000Z',
      '2026-10-25T02:30:00.000Z',
      '2026-10-25T03:30:00.000Z',
    ]);
  });

  it('America/New_York spring-forward: 02:30 does not exist on 8 March; the fire comes at 03:00 EDT', async () => {
    const id = await schedule('30 2 * * *', 'America/New_York', '2026-03-06T12:00:00Z');
    expect(await fireThrough(id, '2026-03-09T12:00:00Z')).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:30:00.000Z',
    ]);
  });

  it('America/New_York fall-back: 01:30 happens twice on 1 November; the daily fire comes once', async () => {
    const id = await schedule('30 1 * * *', 'America/New_York', '2026-10-30T12:00:00Z');
    expect(await fireThrough(id, '2026-11-02T12:00:00Z')).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
  });
});

describe('firing', () => {
  it('an every-minute schedule over an hour fires 60 times, each a run of the schedule through admission', async () => {
    const id = await schedule('* * * * *', 'UTC', '2026-02-02T10:00:00Z', {
      flow_id: ids.flow,
      params: { change_id: 'CHG7' },
      targets: { routers: [ids.r1] },
    });
    for (let minute = 1; minute <= 60; minute += 1) {
      world.clock.set(new Date(Date.parse('2026-02-02T10:00:00Z') + minute * 60_000).toISOString());
      await fireDue(world.url);
    }
    const runs = await runsOfSchedule(world, id);
    expect(runs).toHaveLength(60);
    expect(new Set(runs.map((r) => (r.trigger_details_json as { due_at: string }).due_at)).size).toBe(60);
    expect(runs[0]).toMatchObject({
      trigger_source: 'schedule',
      params_json: { change_id: 'CHG7', retries: 2, mode: 'check' },
      targets_json: { routers: [ids.r1] },
      flow_version: 1,
    });
    const row = await knex()('schedules').where({ id }).first();
    expect(row.next_fire_at.toISOString()).toBe('2026-02-02T11:01:00.000Z');
    expect(row.last_fired_at.toISOString()).toBe('2026-02-02T11:00:00.000Z');
    expect(row.last_run_id).toBe(runs.at(-1)!.id);
    expect(await count(knex()('schedule_fires').where({ schedule_id: id, outcome: 'fired' }))).toBe(60);
    expect(await count(knex()('audit_logs').where({ event_type: 'schedule.fired', resource_id: id }))).toBe(60);
    const started = await knex()('audit_logs').where({ event_type: 'run.started', resource_id: runs[0]!.id }).first();
    expect(started).toMatchObject({ action: 'internal:scheduler', actor_sub: 'system:scheduler' });
  });

  it('a disabled, a deleted schedule and one whose flow is deleted never run; the last records failed fires and keeps going', async () => {
    const doomed = await seedFlow(knex(), world.ids.acme!, { name: 'doomed', versions: [BARE] });
    const disabled = await schedule('* * * * *', 'UTC', '2026-02-03T10:00:00Z', { enabled: false });
    const deleted = await schedule('* * * * *', 'UTC', '2026-02-03T10:00:00Z');
    const flowGone = await schedule('* * * * *', 'UTC', '2026-02-03T10:00:00Z', { flow_id: doomed });
    await call(world, 'dave', 'DELETE', `/schedules/${deleted}`);
    await knex()('flows').where({ id: doomed }).update({ deleted_at: knex().fn.now() });
    world.daemon.services.triggerConfig.invalidate();
    for (let minute = 1; minute <= 5; minute += 1) {
      world.clock.set(new Date(Date.parse('2026-02-03T10:00:00Z') + minute * 60_000).toISOString());
      await fireDue(world.url);
    }
    for (const id of [disabled, deleted, flowGone]) expect(await runsOfSchedule(world, id)).toEqual([]);
    const fires = await knex()('schedule_fires').where({ schedule_id: flowGone }).orderBy('due_at');
    expect(fires).toHaveLength(5);
    expect(fires.every((f) => f.outcome === 'failed' && f.run_id === null && f.error_json.code === 'flow_not_found')).toBe(true);
    const after = await call(world, 'carol', 'GET', `/schedules/${flowGone}`);
    expect(after.body).toMatchObject({
      next_fire_at: '2026-02-03T10:06:00.000Z',
      last_fired_at: '2026-02-03T10:05:00.000Z',
      last_fire_error: { code: 'flow_not_found', due_at: '2026-02-03T10:05:00.000Z' },
    });
    expect(await count(knex()('audit_logs').where({ event_type: 'schedule.fire_failed', resource_id: flowGone, outcome: 'failure' }))).toBe(
      5,
    );
    expect(await count(knex()('schedule_fires').whereIn('schedule_id', [disabled, deleted]))).toBe(0);
  });

  it('a fire whose targets are gone fails with its reason; the next one after they return runs and clears the error', async () => {
    const device = await seedDevice(knex(), world.ids.acme!, 'ephemeral');
    const id = await schedule('0 * * * *', 'UTC', '2026-02-04T10:00:00Z', {
      flow_id: ids.flow,
      params: { change_id: 'CHG1' },
      targets: { routers: [device] },
    });
    await knex()('devices').where({ id: device }).update({ deleted_at: knex().fn.now() });
    world.clock.set('2026-02-04T11:00:00Z');
    const failed = await fireFor(id);
    expect(failed!.body.fires[0]).toMatchObject({ outcome: 'failed', error: { code: 'unknown_device_reference' } });
    expect((await call(world, 'carol', 'GET', `/schedules/${id}`)).body.last_fire_error.code).toBe('unknown_device_reference');
    await knex()('devices').where({ id: device }).update({ deleted_at: null });
    world.clock.set('2026-02-04T12:00:00Z');
    const fired = await fireFor(id);
    expect(fired!.body.fires[0].outcome).toBe('fired');
    expect((await call(world, 'carol', 'GET', `/schedules/${id}`)).body).toMatchObject({
      last_fire_error: null,
      last_run_id: fired!.body.fires[0].run_id,
    });
  });

  it('an unpinned schedule whose newest version needs params it does not hold fails with validation_failed; a pinned one still runs', async () => {
    const evolving = await seedFlow(knex(), world.ids.acme!, { name: 'evolving', versions: [BARE] });
    const unpinned = await schedule('0 * * * *', 'UTC', '2026-02-06T10:00:00Z', { flow_id: evolving });
    const pinned = await schedule('0 * * * *', 'UTC', '2026-02-06T10:00:00Z', { flow_id: evolving, flow_version: 1 });
    await knex()('flow_versions').insert({
      flow_id: evolving,
      version: 2,
      definition_json: JSON.stringify(DEFINITION),
      committed_by: 'sub-seed',
    });
    await knex()('flows').where({ id: evolving }).update({ latest_version: 2 });
    world.daemon.services.triggerConfig.invalidate();
    world.clock.set('2026-02-06T11:00:00Z');
    const reports = await fireDue(world.url);
    const of = (id: string) => reports.find((r) => r.body.schedule_id === id)!.body.fires[0];
    expect(of(unpinned)).toMatchObject({ outcome: 'failed', error: { code: 'validation_failed' } });
    expect(of(pinned).outcome).toBe('fired');
  });

  it('a purged flow leaves the schedule without one; its fires fail with flow_not_found', async () => {
    const purged = await seedFlow(knex(), world.ids.acme!, { name: 'purged', versions: [BARE] });
    const id = await schedule('0 * * * *', 'UTC', '2026-02-05T10:00:00Z', { flow_id: purged });
    await knex()('flow_versions').where({ flow_id: purged }).delete();
    await knex()('flows').where({ id: purged }).delete();
    world.daemon.services.triggerConfig.invalidate();
    world.clock.set('2026-02-05T11:00:00Z');
    const report = await fireFor(id);
    expect(report!.body.fires[0]).toMatchObject({ outcome: 'failed', error: { code: 'flow_not_found' } });
    expect((await call(world, 'carol', 'GET', `/schedules/${id}`)).body).toMatchObject({
      flow_id: null,
      next_fire_at: '2026-02-05T12:00:00.000Z',
    });
  });
});

describe("a deactivated organization's schedules", () => {
  it('are neither due nor triggered nor fired by the tick; reactivated, the missed time is a misfire', async () => {
    const theirs = await seedFlow(knex(), world.ids.globex!, { name: 'theirs', versions: [BARE] });
    world.clock.set('2026-02-07T10:00:00Z');
    const created = await call(world, 'bob', 'POST', '/schedules', { name: 'hourly', flow_id: theirs, cron: '0 * * * *' }, 'globex');
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await knex()('organizations').where({ id: world.ids.globex }).update({ is_active: false });
    try {
      world.clock.set('2026-02-07T11:00:30Z');
      const due = await internal(world.url, 'GET', '/internal/schedules/due?limit=500');
      expect(due.body.items.map((item: { schedule_id: string }) => item.schedule_id)).not.toContain(id);
      const trigger = await internal(world.url, 'POST', `/internal/schedules/${id}/trigger`, { due_at: '2026-02-07T11:00:00.000Z' });
      expect(trigger.status).toBe(404);
      expect(trigger.body.code).toBe('resource_not_found');
      expect((await internal(world.url, 'POST', '/internal/maintenance/tick')).status).toBe(200);
      expect(await runsOfSchedule(world, id)).toEqual([]);
      expect(await count(knex()('schedule_fires').where({ schedule_id: id }))).toBe(0);
    } finally {
      await knex()('organizations').where({ id: world.ids.globex }).update({ is_active: true });
    }
    world.clock.set('2026-02-07T12:30:00Z');
    const report = await fireFor(id);
    expect(report.body.fires.map((fire: { due_at: string; outcome: string }) => [fire.due_at, fire.outcome])).toEqual([
      ['2026-02-07T12:00:00.000Z', 'fired'],
    ]);
  });
});

describe('catch-up after downtime follows the misfire policy', () => {
  // Hourly from 10:00; the scheduler comes back at 15:30, so 11:00 to 15:00 were missed.
  const downtime = async (policy: string, backAt = '2026-03-02T15:30:00Z') => {
    const id = await schedule('0 * * * *', 'UTC', '2026-03-02T10:00:00Z', { misfire_policy: policy });
    world.clock.set(backAt);
    return { id, report: await fireFor(id) };
  };

  it('last (the default): runs once, for the newest missed time; the older ones are skipped and audited', async () => {
    const { id, report } = await downtime('last');
    expect(await dueTimesOf(id)).toEqual(['2026-03-02T15:00:00.000Z']);
    expect(report.body).toMatchObject({
      skipped: { from: '2026-03-02T11:00:00.000Z', to: '2026-03-02T14:00:00.000Z' },
      next_fire_at: '2026-03-02T16:00:00.000Z',
    });
    expect(await count(knex()('audit_logs').where({ event_type: 'schedule.fires_skipped', resource_id: id }))).toBe(1);
  });

  it('none: runs nothing missed; the schedule moves on to the next time', async () => {
    const { id, report } = await downtime('none');
    expect(await dueTimesOf(id)).toEqual([]);
    expect(report.body).toMatchObject({ fires: [], next_fire_at: '2026-03-02T16:00:00.000Z' });
    expect(await nextFireAt(id)).toBe('2026-03-02T16:00:00.000Z');
  });

  it('none: a fire time still within the grace is on time, and runs', async () => {
    const { id } = await downtime('none', '2026-03-02T15:00:30Z');
    expect(await dueTimesOf(id)).toEqual(['2026-03-02T15:00:00.000Z']);
  });

  it(`all: runs each missed time, oldest first, at most the newest ${CATCH_UP_MAX}`, async () => {
    const { id, report } = await downtime('all');
    expect(await dueTimesOf(id)).toEqual(['2026-03-02T13:00:00.000Z', '2026-03-02T14:00:00.000Z', '2026-03-02T15:00:00.000Z']);
    expect(report.body.skipped).toEqual({ from: '2026-03-02T11:00:00.000Z', to: '2026-03-02T12:00:00.000Z' });
    expect(await nextFireAt(id)).toBe('2026-03-02T16:00:00.000Z');
  });

  it('all: within the cap, every missed time runs', async () => {
    const { id } = await downtime('all', '2026-03-02T12:10:00Z');
    expect(await dueTimesOf(id)).toEqual(['2026-03-02T11:00:00.000Z', '2026-03-02T12:00:00.000Z']);
  });

  it('a trigger of the newest due time by an external scheduler after downtime is answered with the same report', async () => {
    const id = await schedule('0 * * * *', 'UTC', '2026-03-03T10:00:00Z');
    world.clock.set('2026-03-03T13:30:00Z');
    const answer = await internal(world.url, 'POST', `/internal/schedules/${id}/trigger`, { due_at: '2026-03-03T11:00:00Z' });
    expect(answer.status).toBe(200);
    expect(answer.body.fires.map((f: { due_at: string }) => f.due_at)).toEqual(['2026-03-03T13:00:00.000Z']);
  });
});

describe('the embedded loop', () => {
  let looping: ScheduleWorld;
  beforeAll(async () => {
    looping = await startScheduleWorld({ SERVICE_SCHEDULER_ENABLED: 'true', SERVICE_SCHEDULER_INTERVAL_MS: '50' }, '2026-04-01T09:00:00Z');
  });
  afterAll(() => looping?.close());

  it('fires a due schedule by itself, once per due time, reading the injected clock', async () => {
    const flow = await seedFlow(looping.knex(), looping.ids.acme!, { name: 'looped', versions: [BARE] });
    const made = await createSchedule(looping, { flow_id: flow, cron: '*/10 * * * *' });
    expect(made.next_fire_at).toBe('2026-04-01T09:10:00.000Z');
    looping.clock.set('2026-04-01T09:10:01Z');
    const deadline = Date.now() + 20_000;
    while ((await runsOfSchedule(looping, made.id)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    // Several passes more: the due time is consumed, nothing else fires.
    await new Promise((r) => setTimeout(r, 300));
    const runs = await runsOfSchedule(looping, made.id);
    expect(runs.map((r) => (r.trigger_details_json as { due_at: string }).due_at)).toEqual(['2026-04-01T09:10:00.000Z']);
    expect((await looping.knex()('schedules').where({ id: made.id }).first()).next_fire_at.toISOString()).toBe('2026-04-01T09:20:00.000Z');
  });
});

describe('the maintenance tick', () => {
  it('fires what is due (its job schedules.fire_due), so an external tick alone keeps schedules firing', async () => {
    const id = await schedule('0 * * * *', 'UTC', '2026-06-01T10:30:00Z');
    world.clock.set('2026-06-01T11:00:00Z');
    const tick = await internal(world.url, 'POST', '/internal/maintenance/tick');
    expect(tick.status).toBe(200);
    const job = (tick.body.jobs as { name: string; outcome: string; summary: Record<string, number> }[]).find(
      (entry) => entry.name === 'schedules.fire_due',
    );
    expect(job?.outcome).toBe('ok');
    expect(job?.summary.fired).toBeGreaterThanOrEqual(1);
    expect(await dueTimesOf(id)).toEqual(['2026-06-01T11:00:00.000Z']);
  });

  it('answers every count of schedules.fire_due, zero included, on a pass with nothing due', async () => {
    world.clock.set('2031-01-01T00:00:30Z');
    await internal(world.url, 'POST', '/internal/maintenance/tick');
    // Everything due at this time has fired: the next pass looks at nothing.
    const tick = await internal(world.url, 'POST', '/internal/maintenance/tick');
    const job = (tick.body.jobs as { name: string; summary: Record<string, number> }[]).find(
      (entry) => entry.name === 'schedules.fire_due',
    );
    expect(job?.summary).toEqual({ looked: 0, fired: 0, failed: 0, lost: 0 });
  });
});
