import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND } from './helpers/backend.js';
import { startTestDaemonOn, type TestDaemon } from './helpers/daemon.js';
import { BARE, seedFlow } from './helpers/runs-fixtures.js';
import { fireDue, INTERNAL_TOKEN, startScheduleWorld, type ScheduleWorld } from './helpers/schedules-fixtures.js';

const SCHEDULES = 100;
const MINUTES = 3;
const START = Date.parse('2026-05-04T08:00:00Z');
const SECRETS_KEY = 'cd'.repeat(32);

/**
 * Exactly once: three daemons (on PostgreSQL: three instances on one database; on PGlite, which has one
 * user, three schedulers racing through one daemon) fire the same due times of 100 every-minute schedules
 * at once through the external scheduler's routes, while the first daemon's embedded loop fires them too,
 * all reading one injected clock. Each (schedule, due time) gets exactly one run, none missing.
 */
describe(`schedules raced by three schedulers (${BACKEND})`, () => {
  let world: ScheduleWorld;
  const others: TestDaemon[] = [];
  let bases: string[];

  beforeAll(async () => {
    world = await startScheduleWorld(
      { SERVICE_SECRETS_ENCRYPTION_KEY: SECRETS_KEY, SERVICE_SCHEDULER_ENABLED: 'true', SERVICE_SCHEDULER_INTERVAL_MS: '20' },
      new Date(START).toISOString(),
    );
    if (BACKEND === 'postgres') {
      for (let i = 0; i < 2; i += 1) {
        others.push(
          await startTestDaemonOn(
            world.daemon.location,
            { SERVICE_SCHEDULER_ENABLED: 'false', SERVICE_INTERNAL_API_TOKEN: INTERNAL_TOKEN, SERVICE_SECRETS_ENCRYPTION_KEY: SECRETS_KEY },
            { clock: () => world.clock.now },
          ),
        );
      }
    }
    bases = BACKEND === 'postgres' ? [world.url, ...others.map((d) => d.url)] : [world.url, world.url, world.url];
    const db = world.knex();
    const flow = await seedFlow(db, world.ids.acme!, { name: 'raced', versions: [BARE] });
    const rows = Array.from({ length: SCHEDULES }, (_, i) => ({
      org_id: world.ids.acme,
      flow_id: flow,
      name: `raced-${i}`,
      cron: '* * * * *',
      timezone: 'UTC',
      next_fire_at: new Date(START + 60_000),
    }));
    await db('schedules').insert(rows);
  }, 120_000);
  afterAll(async () => {
    for (const other of others) await other.close();
    await world?.close();
  });

  it('makes exactly one run per (schedule, fire time), none missing', async () => {
    const db = world.knex();
    const fires = async () => Number((await db('schedule_fires').count({ n: '*' }))[0]!.n);
    for (let minute = 1; minute <= MINUTES; minute += 1) {
      world.clock.set(new Date(START + minute * 60_000).toISOString());
      const answers = (await Promise.all(bases.map((base) => fireDue(base)))).flat();
      for (const answer of answers) {
        expect(answer.status === 200 || answer.body.code === 'schedule_fire_stale', JSON.stringify(answer.body)).toBe(true);
      }
      // The loop's pass may still be firing what the routes found taken: the minute is over when every due time has its row.
      const deadline = Date.now() + 20_000;
      while ((await fires()) < SCHEDULES * minute && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    }
    const runs = await db('runs')
      .where({ trigger_source: 'schedule' })
      .select(db.raw("trigger_details_json->>'schedule_id' as schedule_id"), db.raw("trigger_details_json->>'due_at' as due_at"));
    expect(runs).toHaveLength(SCHEDULES * MINUTES);
    const pairs = new Set(runs.map((r: { schedule_id: string; due_at: string }) => `${r.schedule_id} ${r.due_at}`));
    expect(pairs.size).toBe(SCHEDULES * MINUTES);
    const gates = await db('schedule_fires').where({ outcome: 'fired' }).whereNotNull('run_id').count({ n: '*' });
    expect(Number(gates[0]!.n)).toBe(SCHEDULES * MINUTES);
    const behind = await db('schedules')
      .whereNot('next_fire_at', new Date(START + (MINUTES + 1) * 60_000))
      .count({ n: '*' });
    expect(Number(behind[0]!.n)).toBe(0);
  }, 120_000);
});
