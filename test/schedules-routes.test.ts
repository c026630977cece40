import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND } from './helpers/backend.js';
import { expectIfMatchHonoured, ifMatch } from './helpers/if-match.js';
import { behindRowLock } from './helpers/row-lock.js';
import { BARE, DEFINITION, seedDevice, seedFlow, UNKNOWN_ID } from './helpers/runs-fixtures.js';
import { createSchedule, internal, runsOfSchedule, startScheduleWorld, type ScheduleWorld } from './helpers/schedules-fixtures.js';
import { call, count } from './helpers/webhooks-fixtures.js';

let world: ScheduleWorld;
const ids: Record<string, string> = {};
const knex = () => world.knex();

beforeAll(async () => {
  world = await startScheduleWorld();
  const db = knex();
  ids.flow = await seedFlow(db, world.ids.acme!, { name: 'upgrade', versions: [BARE, DEFINITION] });
  ids.bare = await seedFlow(db, world.ids.acme!, { name: 'bare', versions: [BARE] });
  ids.draftOnly = await seedFlow(db, world.ids.acme!, { name: 'draft-only' });
  ids.foreignFlow = await seedFlow(db, world.ids.globex!, { name: 'theirs', versions: [BARE] });
  ids.sharedFlow = await seedFlow(db, world.ids.commons!, { name: 'common', versions: [BARE] });
  ids.r1 = await seedDevice(db, world.ids.acme!, 'r1');
  ids.foreignDevice = await seedDevice(db, world.ids.globex!, 'g1');
});
afterAll(() => world?.close());

const valid = () => ({
  name: 'nightly upgrade',
  flow_id: ids.flow,
  cron: '30 2 * * *',
  timezone: 'Europe/Berlin',
  params: { change_id: 'CHG1' },
  targets: { routers: [ids.r1] },
});
const schedules = () => count(knex()('schedules'));
const audits = (eventType: string) => count(knex()('audit_logs').where({ event_type: eventType, resource_type: 'schedule' }));

describe('POST /schedules/validate-cron', () => {
  it('answers the next five fire times in the zone, with its offset, and a description (a viewer may ask)', async () => {
    world.clock.set('2026-03-27T12:00:00Z');
    const answer = await call(world, 'carol', 'POST', '/schedules/validate-cron', { cron: '30 2 * * *', timezone: 'Europe/Berlin' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ valid: true, timezone: 'Europe/Berlin' });
    // 29 March: the spring change skips 02:30; croner fires at 03:00 local, as Vixie cron does.
    expect(answer.body.next_runs).toEqual([
      '2026-03-28T02:30:00+01:00',
      '2026-03-29T03:00:00+02:00',
      '2026-03-30T02:30:00+02:00',
      '2026-03-31T02:30:00+02:00',
      '2026-04-01T02:30:00+02:00',
    ]);
    expect(answer.body.description).toMatch(/02:30/);
  });

  it('answers the zone as the time zone database spells it when only its case differs; an alias as given', async () => {
    const spelled = await call(world, 'carol', 'POST', '/schedules/validate-cron', { cron: '@daily', timezone: 'europe/BERLIN' });
    expect(spelled.body).toMatchObject({ valid: true, timezone: 'Europe/Berlin' });
    const alias = await call(world, 'carol', 'POST', '/schedules/validate-cron', { cron: '@daily', timezone: 'US/Eastern' });
    expect(alias.body).toMatchObject({ valid: true, timezone: 'US/Eastern' });
  });

  it('defaults to UTC and takes nicknames', async () => {
    world.clock.set('2026-01-05T10:15:00Z');
    const answer = await call(world, 'carol', 'POST', '/schedules/validate-cron', { cron: '@hourly' });
    expect(answer.status).toBe(200);
    expect(answer.body.timezone).toBe('UTC');
    expect(answer.body.next_runs[0]).toBe('2026-01-05T11:00:00+00:00');
  });

  it.each([
    ['61 * * * *', 'minute'],
    ['*/0 * * * *', 'minute'],
    ['0 24 * * *', 'hour'],
    ['0 0 32 * *', 'day_of_month'],
    ['0 0 0 * *', 'day_of_month'],
    ['0 0 * 13 *', 'month'],
    ['0 0 * JANX *', 'month'],
    ['0 0 * * 8', 'day_of_week'],
    ['0 0 * *', 'expression'],
    ['0 0 * * * *', 'expression'],
    ['@reboot', 'expression'],
    ['0 0 30 2 *', 'expression'],
  ])('refuses %s naming the field %s', async (cron, field) => {
    const answer = await call(world, 'carol', 'POST', '/schedules/validate-cron', { cron });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ code: 'invalid_cron', field });
    expect(answer.body.errors[0].path).toBe('cron');
  });

  it('refuses an unknown zone', async () => {
    const answer = await call(world, 'carol', 'POST', '/schedules/validate-cron', { cron: '* * * * *', timezone: 'Mars/Olympus' });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('unknown_timezone');
    expect(answer.body.errors[0].path).toBe('timezone');
  });
});

describe('POST /schedules', () => {
  it('stores the schedule with its next fire time in the zone, and audits entity.created', async () => {
    world.clock.set('2026-03-28T12:00:00Z');
    // The zone in the wrong case is stored as the time zone database spells it.
    const answer = await call(world, 'dave', 'POST', '/schedules', { ...valid(), timezone: 'europe/berlin' });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('location')).toBe(`/schedules/${answer.body.id}`);
    expect(answer.body).toMatchObject({
      org_id: world.ids.acme,
      name: 'nightly upgrade',
      flow_id: ids.flow,
      flow_name: 'upgrade',
      flow_version: null,
      cron: '30 2 * * *',
      timezone: 'Europe/Berlin',
      params: { change_id: 'CHG1' },
      targets: { routers: [ids.r1] },
      enabled: true,
      misfire_policy: 'last',
      next_fire_at: '2026-03-29T01:00:00.000Z',
      last_fired_at: null,
      last_run_id: null,
      last_fire_error: null,
      created_by: 'sub-dave',
      deleted_at: null,
    });
    const entry = await knex()('audit_logs').where({ event_type: 'entity.created', resource_id: answer.body.id }).first();
    expect(entry).toMatchObject({ action: 'schedule:manage', outcome: 'success', org_id: world.ids.acme });
  });

  it("runs a shared organization's flow, and a pinned version", async () => {
    const shared = await call(world, 'dave', 'POST', '/schedules', { name: 'shared', flow_id: ids.sharedFlow, cron: '0 * * * *' });
    expect(shared.status).toBe(201);
    const pinned = await call(world, 'dave', 'POST', '/schedules', {
      name: 'pinned',
      flow_id: ids.flow,
      flow_version: 1,
      cron: '0 * * * *',
    });
    expect(pinned.status).toBe(201);
    expect(pinned.body.flow_version).toBe(1);
  });

  it.each([
    ['an invalid minute', { cron: '60 * * * *' }, 422, 'invalid_cron'],
    ['an invalid hour', { cron: '0 25 * * *' }, 422, 'invalid_cron'],
    ['an invalid day of month', { cron: '0 0 40 * *' }, 422, 'invalid_cron'],
    ['an invalid month', { cron: '0 0 1 0 *' }, 422, 'invalid_cron'],
    ['an invalid day of week', { cron: '0 0 * * 9' }, 422, 'invalid_cron'],
    ['an unknown zone', { timezone: 'Europe/Atlantis' }, 422, 'unknown_timezone'],
    ['params not matching the inputs', { params: { change_id: 'nope' } }, 422, 'validation_failed'],
    ['a required input left out', { params: {} }, 422, 'validation_failed'],
    ['an undeclared target role', { targets: { routers: [UNKNOWN_ID], firewalls: [UNKNOWN_ID] } }, 422, 'validation_failed'],
    ['targets in another organization', { targets: { routers: ['FOREIGN'] } }, 400, 'unknown_device_reference'],
    ['an unknown device', { targets: { routers: [UNKNOWN_ID] } }, 400, 'unknown_device_reference'],
    ["another organization's flow", { flow_id: 'FOREIGN_FLOW', params: {}, targets: {} }, 404, 'flow_not_found'],
    ['a never committed flow', { flow_id: 'DRAFT', params: {}, targets: {} }, 400, 'flow_not_committed'],
    ['a missing pinned version', { flow_version: 9 }, 404, 'flow_version_not_found'],
    ['an unknown misfire policy', { misfire_policy: 'sometimes' }, 422, 'validation_failed'],
  ])('refuses %s with a code and stores nothing', async (_, change, status, code) => {
    const body: Record<string, unknown> = { ...valid(), ...change };
    if (body.flow_id === 'FOREIGN_FLOW') body.flow_id = ids.foreignFlow;
    if (body.flow_id === 'DRAFT') body.flow_id = ids.draftOnly;
    const targets = body.targets as Record<string, string[]>;
    if (targets.routers?.[0] === 'FOREIGN') body.targets = { routers: [ids.foreignDevice] };
    const before = await schedules();
    const created = await audits('entity.created');
    const answer = await call(world, 'dave', 'POST', '/schedules', body);
    expect(answer.status).toBe(status);
    expect(answer.body.code).toBe(code);
    expect(await schedules()).toBe(before);
    expect(await audits('entity.created')).toBe(created);
  });

  it('names the params and targets at fault', async () => {
    const answer = await call(world, 'dave', 'POST', '/schedules', { ...valid(), params: { change_id: 'x', retries: 9 } });
    expect(answer.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['params.change_id', 'params.retries']);
    const foreign = await call(world, 'dave', 'POST', '/schedules', { ...valid(), targets: { routers: [ids.foreignDevice] } });
    expect(foreign.body.missing).toEqual([{ role: 'routers', device_id: ids.foreignDevice }]);
  });

  it('is refused to a viewer', async () => {
    const answer = await call(world, 'carol', 'POST', '/schedules', valid());
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('forbidden');
  });
});

describe('reading schedules', () => {
  it('GET answers one of the organization; another organization, a malformed or unknown id is 404', async () => {
    const made = await createSchedule(world, valid());
    expect((await call(world, 'carol', 'GET', `/schedules/${made.id}`)).body).toMatchObject({
      id: made.id,
      cron_description: expect.any(String),
    });
    for (const [who, org, id] of [
      ['bob', 'globex', made.id],
      ['carol', 'acme', 'not-a-uuid'],
      ['carol', 'acme', UNKNOWN_ID],
    ] as const) {
      const answer = await call(world, who, 'GET', `/schedules/${id}`, undefined, org);
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('resource_not_found');
    }
  });

  it('lists with filters and paging', async () => {
    const a = await createSchedule(world, { name: 'list-alpha', flow_id: ids.bare, cron: '0 1 * * *' });
    const b = await createSchedule(world, { name: 'list-beta', flow_id: ids.bare, cron: '0 2 * * *', enabled: false });
    const byFlow = await call(world, 'carol', 'GET', `/schedules?flow_id=${ids.bare}&q=list-`);
    expect(byFlow.status).toBe(200);
    expect(byFlow.body.items.map((s: { id: string }) => s.id)).toEqual([a.id, b.id]);
    expect(byFlow.body.total).toBe(2);
    const disabled = await call(world, 'carol', 'GET', `/schedules?flow_id=${ids.bare}&enabled=false`);
    expect(disabled.body.items.map((s: { id: string }) => s.id)).toEqual([b.id]);
    const page = await call(world, 'carol', 'GET', `/schedules?flow_id=${ids.bare}&q=list-&limit=1&offset=1`);
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.body.items.map((s: { id: string }) => s.id)).toEqual([b.id]);
    expect((await call(world, 'carol', 'GET', '/schedules?limit=0')).status).toBe(422);
    expect((await call(world, 'carol', 'GET', '/schedules?colour=red')).status).toBe(422);
    const globex = await call(world, 'bob', 'GET', '/schedules', undefined, 'globex');
    expect(globex.body.items).toEqual([]);
  });
});

describe('PATCH /schedules/{id}', () => {
  it('pauses (no next fire time), resumes (the next from now), and a new expression reschedules; each audited', async () => {
    world.clock.set('2026-01-05T10:00:00Z');
    const made = await createSchedule(world, { ...valid(), timezone: 'UTC', cron: '0 12 * * *' });
    expect(made.next_fire_at).toBe('2026-01-05T12:00:00.000Z');
    const paused = await call(world, 'dave', 'PATCH', `/schedules/${made.id}`, { enabled: false });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ enabled: false, next_fire_at: null });
    world.clock.set('2026-01-06T13:00:00Z');
    const resumed = await call(world, 'dave', 'PATCH', `/schedules/${made.id}`, { enabled: true });
    expect(resumed.body).toMatchObject({ enabled: true, next_fire_at: '2026-01-07T12:00:00.000Z' });
    const renamed = await call(world, 'dave', 'PATCH', `/schedules/${made.id}`, { name: 'renamed' });
    expect(renamed.body).toMatchObject({ name: 'renamed', next_fire_at: '2026-01-07T12:00:00.000Z' });
    const moved = await call(world, 'dave', 'PATCH', `/schedules/${made.id}`, { cron: '0 9 * * *', timezone: 'america/new_york' });
    expect(moved.body).toMatchObject({ timezone: 'America/New_York', next_fire_at: '2026-01-06T14:00:00.000Z' });
    expect(await count(knex()('audit_logs').where({ event_type: 'entity.updated', resource_id: made.id }))).toBe(4);
  });

  it('keeps a due fire time when the zone or expression is restated as stored, in another case or spacing', async () => {
    world.clock.set('2026-01-05T10:00:00Z');
    const made = await createSchedule(world, { ...valid(), name: 'restated', timezone: 'Europe/Berlin', cron: '0 12 * * *' });
    expect(made.next_fire_at).toBe('2026-01-05T11:00:00.000Z');
    world.clock.set('2026-01-05T11:30:00Z');
    const restated = await call(world, 'dave', 'PATCH', `/schedules/${made.id}`, { timezone: 'EUROPE/berlin', cron: ' 0 12 * * * ' });
    expect(restated.body).toMatchObject({ timezone: 'Europe/Berlin', cron: '0 12 * * *', next_fire_at: '2026-01-05T11:00:00.000Z' });
  });

  it('keeps the pinned version when the flow it already runs is restated in capitals', async () => {
    const made = await createSchedule(world, { name: 'pinned-caps', flow_id: ids.flow, flow_version: 1, cron: '0 * * * *' });
    expect(made.flow_version).toBe(1);
    // The body's flow id was compared with the row's as text: the same flow in capitals read as a retarget, dropped
    // the pin and checked the schedule against the latest version, whose inputs it lacks (422).
    const same = await call(world, 'dave', 'PATCH', `/schedules/${made.id}`, { flow_id: ids.flow!.toUpperCase() });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ flow_id: ids.flow, flow_version: 1 });
  });

  // Only PostgreSQL has a second session to hold the row while the PATCH waits for it.
  it.skipIf(BACKEND !== 'postgres')(
    'decides on the row as locked: a resume committed while a new expression waits keeps its fire time',
    async () => {
      world.clock.set('2026-01-05T10:00:00Z');
      const made = await createSchedule(world, { ...valid(), timezone: 'UTC', cron: '0 12 * * *', enabled: false });
      const moved = await behindRowLock(
        knex(),
        'schedules',
        made.id,
        // Its read of the schedule, if it made one before the lock, came before the resume.
        () => call(world, 'dave', 'PATCH', `/schedules/${made.id}`, { cron: '0 9 * * *' }),
        (trx) =>
          trx('schedules')
            .where({ id: made.id })
            .update({ enabled: true, next_fire_at: new Date('2026-01-05T12:00:00Z') }),
      );
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ enabled: true, cron: '0 9 * * *', next_fire_at: '2026-01-06T09:00:00.000Z' });
    },
  );

  it('answers its version as ETag and takes If-Match: a stale one is 412, nothing written', async () => {
    const made = await createSchedule(world, valid());
    await expectIfMatchHonoured(world, {
      collection: 'schedules',
      table: 'schedules',
      id: made.id,
      reader: 'carol',
      writer: 'dave',
      changes: [{ name: 'tagged-1' }, { name: 'late', params: { change_id: 'CHG2' } }, { name: 'tagged-2' }, { name: 'tagged-3' }],
    });
  });

  it('keeps its ETag across a fire (no edit): a PATCH with the tag read before the fire passes', async () => {
    world.clock.set('2026-01-05T10:00:00Z');
    const made = await createSchedule(world, { name: 'read-fire-patch', flow_id: ids.bare, cron: '0 11 * * *', timezone: 'UTC' });
    const path = `/schedules/${made.id}`;
    const read = await call(world, 'dave', 'GET', path);
    const etag = read.headers.get('etag');
    world.clock.set('2026-01-05T11:00:05Z');
    const fired = await internal(world.url, 'POST', `/internal/schedules/${made.id}/trigger`, { due_at: read.body.next_fire_at });
    expect(fired.status).toBe(200);
    const after = await call(world, 'dave', 'GET', path);
    expect(after.body).toMatchObject({
      next_fire_at: '2026-01-06T11:00:00.000Z',
      last_fired_at: '2026-01-05T11:00:00.000Z',
      last_run_id: fired.body.fires[0].run_id,
    });
    expect(after.headers.get('etag')).toBe(etag);
    world.clock.advance(60 * 60_000);
    expect((await call(world, 'dave', 'GET', path)).headers.get('etag')).toBe(etag);
    const patched = await call(world, 'dave', 'PATCH', path, { description: 'edited after a fire' }, 'acme', ifMatch(etag));
    expect(patched.status).toBe(200);
    expect((await knex()('schedules').where({ id: made.id }).first()).description).toBe('edited after a fire');
  });

  // Only PostgreSQL has a second session to change the row while the PATCH waits for it.
  it.skipIf(BACKEND !== 'postgres')('holds If-Match against the row as locked: a change committed while it waits is 412', async () => {
    const made = await createSchedule(world, valid());
    const etag = (await call(world, 'dave', 'GET', `/schedules/${made.id}`)).headers.get('etag');
    const late = await behindRowLock(
      knex(),
      'schedules',
      made.id,
      () => call(world, 'dave', 'PATCH', `/schedules/${made.id}`, { name: 'late' }, 'acme', ifMatch(etag)),
      (trx) => trx('schedules').where({ id: made.id }).update({ name: 'first', updated_at: trx.fn.now() }),
    );
    expect(late).toMatchObject({ status: 412, body: { code: 'precondition_failed' } });
    expect((await knex()('schedules').where({ id: made.id }).first()).name).toBe('first');
  });

  it('refuses bad params, targets, cron or zone with a code and changes nothing', async () => {
    const made = await createSchedule(world, valid());
    for (const [change, status, code] of [
      [{ params: { change_id: 'bad' } }, 422, 'validation_failed'],
      [{ targets: { routers: [ids.foreignDevice] } }, 400, 'unknown_device_reference'],
      [{ cron: '0 0 * * 7-9' }, 422, 'invalid_cron'],
      [{ timezone: 'Nowhere/Here' }, 422, 'unknown_timezone'],
      [{ flow_id: ids.foreignFlow }, 404, 'flow_not_found'],
      [{ path_token: 'x' }, 422, 'validation_failed'],
    ] as const) {
      const answer = await call(world, 'dave', 'PATCH', `/schedules/${made.id}`, change);
      expect(answer.status).toBe(status);
      expect(answer.body.code).toBe(code);
    }
    const row = await knex()('schedules').where({ id: made.id }).first();
    expect(row).toMatchObject({ cron: '30 2 * * *', timezone: 'Europe/Berlin', params_json: { change_id: 'CHG1' }, flow_id: ids.flow });
    expect(await count(knex()('audit_logs').where({ event_type: 'entity.updated', resource_id: made.id }))).toBe(0);
  });

  it('is 404 for an unknown, deleted or foreign schedule, 403 for a viewer', async () => {
    const made = await createSchedule(world, valid());
    expect((await call(world, 'dave', 'PATCH', `/schedules/${UNKNOWN_ID}`, { name: 'x' })).status).toBe(404);
    expect((await call(world, 'bob', 'PATCH', `/schedules/${made.id}`, { name: 'x' }, 'globex')).status).toBe(404);
    expect((await call(world, 'carol', 'PATCH', `/schedules/${made.id}`, { name: 'x' })).status).toBe(403);
    await call(world, 'dave', 'DELETE', `/schedules/${made.id}`);
    expect((await call(world, 'dave', 'PATCH', `/schedules/${made.id}`, { name: 'x' })).status).toBe(404);
  });
});

describe('delete, restore, purge', () => {
  it('soft-deletes (hidden, listed when asked, no next fire time), restores (the next from now), purges for good; each audited', async () => {
    world.clock.set('2026-01-05T10:00:00Z');
    const made = await createSchedule(world, { name: 'lifecycle', flow_id: ids.bare, cron: '*/5 * * * *' });
    expect((await call(world, 'dave', 'DELETE', `/schedules/${made.id}`)).status).toBe(204);
    expect((await call(world, 'carol', 'GET', `/schedules/${made.id}`)).status).toBe(404);
    expect((await call(world, 'dave', 'DELETE', `/schedules/${made.id}`)).status).toBe(404);
    const listed = await call(world, 'carol', 'GET', '/schedules?q=lifecycle&include_deleted=true');
    expect(listed.body.items[0]).toMatchObject({ id: made.id, next_fire_at: null, deleted_by: 'sub-dave' });
    expect((await call(world, 'carol', 'GET', '/schedules?q=lifecycle')).body.items).toEqual([]);

    world.clock.set('2026-01-05T11:02:00Z');
    const restored = await call(world, 'dave', 'POST', `/schedules/${made.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ deleted_at: null, next_fire_at: '2026-01-05T11:05:00.000Z' });
    expect((await call(world, 'dave', 'POST', `/schedules/${made.id}/restore`)).status).toBe(404);

    expect((await call(world, 'dave', 'DELETE', `/schedules/${made.id}/permanent`)).status).toBe(403);
    expect((await call(world, 'alice', 'DELETE', `/schedules/${made.id}/permanent`)).status).toBe(204);
    expect(await count(knex()('schedules').where({ id: made.id }))).toBe(0);
    expect((await call(world, 'alice', 'DELETE', `/schedules/${made.id}/permanent`)).status).toBe(404);
    for (const event of ['entity.deleted', 'entity.restored', 'entity.purged']) {
      expect(await count(knex()('audit_logs').where({ event_type: event, resource_id: made.id }))).toBe(1);
    }
  });
});

describe('POST /schedules/{id}/run', () => {
  it("starts the schedule's run now (trigger_source schedule), leaving the next fire time alone", async () => {
    world.clock.set('2026-01-05T10:00:00Z');
    const made = await createSchedule(world, valid());
    const answer = await call(world, 'dave', 'POST', `/schedules/${made.id}/run`);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      trigger_source: 'schedule',
      status: 'queued',
      flow_id: ids.flow,
      flow_version: 2,
      params: { change_id: 'CHG1', retries: 2, mode: 'check' },
      targets: { routers: [ids.r1] },
      trigger_details: { schedule_id: made.id, run_now: true },
      created_by: 'sub-dave',
    });
    const after = await call(world, 'carol', 'GET', `/schedules/${made.id}`);
    expect(after.body.next_fire_at).toBe(made.next_fire_at);
    expect((await runsOfSchedule(world, made.id)).length).toBe(1);
  });

  it('is 404 for an unknown schedule, 403 for a viewer, and answers admission refusals', async () => {
    expect((await call(world, 'dave', 'POST', `/schedules/${UNKNOWN_ID}/run`)).status).toBe(404);
    const made = await createSchedule(world, { name: 'doomed', flow_id: ids.bare, cron: '0 0 * * *' });
    expect((await call(world, 'carol', 'POST', `/schedules/${made.id}/run`)).status).toBe(403);
    await knex()('flows').where({ id: ids.bare }).update({ deleted_at: knex().fn.now() });
    world.daemon.services.triggerConfig.invalidate();
    try {
      const answer = await call(world, 'dave', 'POST', `/schedules/${made.id}/run`);
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('flow_not_found');
    } finally {
      await knex()('flows').where({ id: ids.bare }).update({ deleted_at: null });
      world.daemon.services.triggerConfig.invalidate();
    }
  });
});

describe('the external scheduler routes', () => {
  it('refuse a missing token, an unknown schedule, a stale or future due time, a malformed body', async () => {
    world.clock.set('2026-01-05T10:00:00Z');
    const made = await createSchedule(world, { name: 'fenced', flow_id: ids.sharedFlow, cron: '0 11 * * *', timezone: 'UTC' });
    const noToken = await fetch(`${world.url}/internal/schedules/due`);
    expect(noToken.status).toBe(401);
    expect(((await noToken.json()) as { code: string }).code).toBe('invalid_internal_token');
    const unknown = await internal(world.url, 'POST', `/internal/schedules/${UNKNOWN_ID}/trigger`, { due_at: '2026-01-05T11:00:00Z' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('resource_not_found');
    const early = await internal(world.url, 'POST', `/internal/schedules/${made.id}/trigger`, { due_at: '2026-01-05T11:00:00Z' });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'schedule_not_due', next_fire_at: '2026-01-05T11:00:00.000Z' });
    world.clock.set('2026-01-05T11:00:05Z');
    const stale = await internal(world.url, 'POST', `/internal/schedules/${made.id}/trigger`, { due_at: '2026-01-05T10:00:00Z' });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('schedule_fire_stale');
    const malformed = await internal(world.url, 'POST', `/internal/schedules/${made.id}/trigger`, { due_at: 'soon' });
    expect(malformed.status).toBe(422);
    expect(malformed.body.code).toBe('validation_failed');
    expect(await runsOfSchedule(world, made.id)).toEqual([]);

    const fired = await internal(world.url, 'POST', `/internal/schedules/${made.id}/trigger`, { due_at: '2026-01-05T12:00:00+01:00' });
    expect(fired.status).toBe(200);
    expect(fired.body).toMatchObject({
      schedule_id: made.id,
      fires: [{ due_at: '2026-01-05T11:00:00.000Z', outcome: 'fired', error: null }],
      skipped: null,
      next_fire_at: '2026-01-06T11:00:00.000Z',
    });
    const again = await internal(world.url, 'POST', `/internal/schedules/${made.id}/trigger`, { due_at: '2026-01-05T11:00:00Z' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('schedule_fire_stale');
    expect((await runsOfSchedule(world, made.id)).map((r) => r.id)).toEqual([fired.body.fires[0].run_id]);
  });
});
