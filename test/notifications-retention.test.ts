import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerWorld, type WorkerWorld } from './helpers/workers-fixtures.js';

/** The maintenance job `notifications.retention` (SERVICE_NOTIFICATION_RETENTION_DAYS, default 30). */

let world: WorkerWorld;
const knex = () => world.daemon.services.db.knex;
const DAY = 24 * 3600 * 1000;

beforeAll(async () => {
  world = await startWorkerWorld({ SERVICE_NOTIFICATION_SENDER_ENABLED: 'false', SERVICE_MAINTENANCE_TIMER_ENABLED: 'false' });
});
afterAll(() => world?.close());

async function message(key: string, status: string, finishedDaysAgo: number | null): Promise<string> {
  const [destination] = await knex()('notification_destinations')
    .insert({ org_id: world.orgId, name: `d-${key}`, kind: 'webhook', config_json: JSON.stringify({ url: 'http://127.0.0.1:9/' }) })
    .returning('id');
  const [row] = await knex()('notification_outbox')
    .insert({
      org_id: world.orgId,
      destination_id: (destination as { id: string }).id,
      event: 'run.succeeded',
      payload_json: JSON.stringify({}),
      dedupe_key: key,
      status,
      attempts: 1,
      // Not due: the pass's own sending (notifications.deliver_due) leaves the open one alone.
      next_attempt_at: new Date(Date.now() + DAY),
      finished_at: finishedDaysAgo === null ? null : new Date(Date.now() - finishedDaysAgo * DAY),
    })
    .returning('id');
  const id = (row as { id: string }).id;
  const at = new Date();
  await knex()('notification_attempts').insert({
    outbox_id: id,
    attempt: 1,
    instance: 'test',
    started_at: at,
    finished_at: at,
    outcome: 'transient',
  });
  return id;
}

describe('notifications.retention', () => {
  it('deletes messages delivered or given up past the retention, with their attempts; keeps recent and open ones', async () => {
    const gone = [await message('old-delivered', 'delivered', 40), await message('old-failed', 'failed', 31)];
    const kept = [await message('recent', 'delivered', 5), await message('open', 'pending', null)];
    const pass = await world.daemon.maintenance.runner.runAll('tick');
    expect(pass.jobs.find((job) => job.name === 'notifications.retention')).toMatchObject({
      outcome: 'ok',
      summary: { deleted: 2, retention_days: 30 },
    });
    expect((await knex()('notification_outbox').pluck('id')).sort()).toEqual([...kept].sort());
    expect(await knex()('notification_attempts').whereIn('outbox_id', gone).pluck('id')).toEqual([]);
    expect(await knex()('notification_attempts').whereIn('outbox_id', kept).pluck('id')).toHaveLength(2);
  });
});
