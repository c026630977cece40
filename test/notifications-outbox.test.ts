import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { beat, control, emptyQueue, reaperOf, startRun, startWorkerWorld, type WorkerWorld } from './helpers/workers-fixtures.js';

/**
 * The outbox is written by triggers in the statement that changes a run or an approval (migrations
 * 20261127130400-130600): every path writes it, a rolled-back change writes nothing, and an event is
 * written once per destination. The senders are off here: only rows are looked at.
 */

let world: WorkerWorld;
const knex = () => world.daemon.services.db.knex;
const ids: Record<string, string> = {};

async function destination(name: string, defaults: readonly string[], orgId = world.orgId): Promise<string> {
  const [row] = await knex()('notification_destinations')
    .insert({
      org_id: orgId,
      name,
      kind: 'webhook',
      config_json: JSON.stringify({ url: 'http://127.0.0.1:9/none' }),
      default_events: JSON.stringify(defaults),
    })
    .returning('id');
  return (row as { id: string }).id;
}

const outbox = (where: Record<string, unknown>) => knex()('notification_outbox').where(where).orderBy('created_at').select('*');

beforeAll(async () => {
  world = await startWorkerWorld({ SERVICE_NOTIFICATION_SENDER_ENABLED: 'false' });
  const all = ['run.started', 'run.succeeded', 'run.failed', 'run.cancelled', 'approval.requested', 'approval.decided'];
  ids.all = await destination('everything', all);
  ids.muted = await destination('muted for this flow', all);
  ids.failures = await destination('failures only', []);
  ids.disabled = await destination('disabled', all);
  await knex()('notification_destinations').where({ id: ids.disabled }).update({ enabled: false });
  ids.deleted = await destination('deleted', all);
  await knex()('notification_destinations').where({ id: ids.deleted }).update({ deleted_at: knex().fn.now() });
  const otherOrg = (await knex()('organizations').insert({ slug: 'other', name: 'Other' }).returning('id'))[0] as { id: string };
  ids.foreign = await destination('foreign', all, otherOrg.id);
  await knex()('flow_notification_subscriptions').insert([
    { org_id: world.orgId, flow_id: world.flowId, destination_id: ids.muted, events: JSON.stringify(all), enabled: false },
    { org_id: world.orgId, flow_id: world.flowId, destination_id: ids.failures, events: JSON.stringify(['run.failed']) },
  ]);
});
afterAll(() => world?.close());
afterEach(() => emptyQueue(world));

describe('the outbox triggers', () => {
  it('writes run.started with the admission, for the defaults and subscriptions that take it', async () => {
    const id = await startRun(world);
    const rows = await outbox({ run_id: id });
    expect(rows.map((r) => [r.event, r.destination_id])).toEqual([['run.started', ids.all]]);
    expect(rows[0]).toMatchObject({ status: 'pending', attempts: 0, org_id: world.orgId, flow_id: world.flowId });
    expect(rows[0].payload_json).toMatchObject({ event: 'run.started', run: { id, status: 'queued', flow_name: 'two-steps' } });
  });

  it('writes run.cancelled with a cancel', async () => {
    const id = await startRun(world);
    await control(world, id, 'cancel');
    expect((await outbox({ run_id: id, event: 'run.cancelled' })).map((r) => r.destination_id)).toEqual([ids.all]);
  });

  it("writes run.failed with the reaper's worker_lost, to the flow's subscription too", async () => {
    const id = await startRun(world);
    await beat(world, { worker_id: 'w-notify', free_slots: 1 });
    await knex()('step_runs').insert({ run_id: id, attempt: 1, step_id: 'first', handler: 'general.noop', started_at: knex().fn.now() });
    await knex()('runs')
      .where({ id })
      .update({ lease_expires_at: knex().raw("now() - interval '1 minute'") });
    expect((await reaperOf(world).reapExpiredLeases()).failed).toEqual([id]);
    const rows = await outbox({ run_id: id, event: 'run.failed' });
    expect(rows.map((r) => r.destination_id).sort()).toEqual([ids.all, ids.failures].sort());
    expect(rows[0].payload_json.run.error).toMatchObject({ code: 'worker_lost' });
  });

  it('writes nothing for a change that is rolled back, and each event once per destination', async () => {
    const id = await startRun(world);
    await knex()
      .transaction(async (trx) => {
        await trx('runs').where({ id }).update({ status: 'succeeded' });
        const [written] = await trx('notification_outbox').where({ run_id: id, event: 'run.succeeded' }).count({ n: '*' });
        expect(Number((written as { n: string | number }).n)).toBe(1);
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await outbox({ run_id: id, event: 'run.succeeded' })).toEqual([]);
    await knex()('runs').where({ id }).update({ status: 'succeeded' });
    await knex()('runs').where({ id }).update({ status: 'running' });
    await knex()('runs').where({ id }).update({ status: 'succeeded' });
    expect((await outbox({ run_id: id, event: 'run.succeeded' })).length).toBe(1);
  });

  it('writes approval.requested when an approval opens and approval.decided when it is decided', async () => {
    const runId = await startRun(world);
    const [approval] = await knex()('approvals')
      .insert({ run_id: runId, org_id: world.orgId, step_id: 'first', requested_by_worker: 'w', requested_attempt: 1, message: 'go?' })
      .returning('id');
    const approvalId = (approval as { id: string }).id;
    const requested = await outbox({ approval_id: approvalId });
    expect(requested.map((r) => r.event)).toEqual(['approval.requested']);
    expect(requested[0].payload_json).toMatchObject({ approval: { id: approvalId, step_id: 'first', message: 'go?' }, run: { id: runId } });
    await knex()('approvals').where({ id: approvalId }).update({ status: 'rejected', resolved_at: knex().fn.now() });
    const decided = await outbox({ approval_id: approvalId, event: 'approval.decided' });
    expect(decided.map((r) => r.payload_json.approval.status)).toEqual(['rejected']);
  });

  it('writes nothing to a disabled, deleted or foreign destination', async () => {
    expect(await outbox({ destination_id: ids.disabled })).toEqual([]);
    expect(await outbox({ destination_id: ids.deleted })).toEqual([]);
    expect(await outbox({ destination_id: ids.foreign })).toEqual([]);
    expect(await outbox({ destination_id: ids.muted })).toEqual([]);
  });
});
