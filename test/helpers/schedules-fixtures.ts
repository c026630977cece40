import { call, startWorld, type Answer, type World } from './webhooks-fixtures.js';

/**
 * What the schedule tests share: the webhook tests' world (acme with alice admin, dave operator, carol
 * viewer; globex with bob; commons shared), its daemon reading "now" from a clock the test sets, the
 * embedded loop off unless asked (fires are driven through the internal routes), and the internal token.
 */

export const INTERNAL_TOKEN = 'scheduler-secret-0123456789-abcdef';

export interface TestClock {
  now: Date;
  set(iso: string): void;
  advance(ms: number): void;
}

export interface ScheduleWorld extends World {
  readonly clock: TestClock;
}

export function testClock(iso: string): TestClock {
  const clock: TestClock = {
    now: new Date(iso),
    set: (at) => void (clock.now = new Date(at)),
    advance: (ms) => void (clock.now = new Date(clock.now.getTime() + ms)),
  };
  return clock;
}

export async function startScheduleWorld(env: Record<string, string> = {}, start = '2026-01-05T10:00:00Z'): Promise<ScheduleWorld> {
  const clock = testClock(start);
  const world = await startWorld(
    // Tests fire on their own clock: neither the scheduler loop nor the maintenance timer (whose pass runs
    // `schedules.fire_due` too) may fire between a test's clock change and its own fire.
    { SERVICE_SCHEDULER_ENABLED: 'false', SERVICE_MAINTENANCE_TIMER_ENABLED: 'false', SERVICE_INTERNAL_API_TOKEN: INTERNAL_TOKEN, ...env },
    { clock: () => clock.now },
  );
  return { ...world, clock };
}

/** An internal (scheduler) call with the token, against `base` (another daemon of the same database). */
export async function internal(base: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-internal-token': INTERNAL_TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** Everything due now on `base`, each triggered with its due time; the answers' bodies. */
export async function fireDue(base: string): Promise<Answer[]> {
  const due = await internal(base, 'GET', '/internal/schedules/due?limit=500');
  if (due.status !== 200) throw new Error(`due answered ${due.status}: ${JSON.stringify(due.body)}`);
  const items = due.body.items as { schedule_id: string; due_at: string }[];
  return Promise.all(
    items.map((item) => internal(base, 'POST', `/internal/schedules/${item.schedule_id}/trigger`, { due_at: item.due_at })),
  );
}

/** Creates a schedule as `who`; throws unless 201. */
export async function createSchedule(world: World, fields: Record<string, unknown>, who = 'dave'): Promise<Record<string, any>> {
  const created = await call(world, who, 'POST', '/schedules', { name: `s-${Math.random().toString(36).slice(2, 8)}`, ...fields });
  if (created.status !== 201) throw new Error(`POST /schedules answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body;
}

export const runsOfSchedule = (world: World, scheduleId: string) =>
  world
    .knex()('runs')
    .whereRaw("trigger_details_json->>'schedule_id' = ?", [scheduleId])
    .orderBy('created_at')
    .select('id', 'trigger_source', 'trigger_details_json', 'params_json', 'targets_json', 'flow_version');
