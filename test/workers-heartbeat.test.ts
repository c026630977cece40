import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RUN_EVENTS_CHANNEL } from '../src/daemon/db/channels.js';
import {
  beat,
  control,
  emptyQueue,
  heartbeat,
  INTERNAL_TOKEN,
  reaperOf,
  startRun,
  startWorkerWorld,
  TWO_STEPS,
  type WorkerWorld,
} from './helpers/workers-fixtures.js';

let world: WorkerWorld;
const knex = () => world.daemon.services.db.knex;

beforeAll(async () => {
  world = await startWorkerWorld();
});
afterAll(() => world?.close());
afterEach(() => emptyQueue(world));

async function runRow(id: string) {
  return knex()('runs').where({ id }).first();
}

async function events(id: string) {
  return (await knex()('run_events').where({ run_id: id }).orderBy('seq')) as {
    seq: string;
    type: string;
    data: Record<string, unknown>;
  }[];
}

describe('the heartbeat route', () => {
  it('refuses a missing or wrong internal token with 401', async () => {
    const body = { worker_id: 'w-auth' };
    expect((await heartbeat(world, body, '')).status).toBe(401);
    const wrong = await heartbeat(world, body, 'not-the-token');
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { code: string }).code).toBe('invalid_internal_token');
  });

  it('refuses a malformed body with 422 naming each path', async () => {
    const response = await heartbeat(world, { worker_id: '-bad', free_slots: -1, running: [{ run_id: 'x', attempt: 0 }], surplus: 1 });
    expect(response.status).toBe(422);
    const problem = (await response.json()) as { code: string; errors: { path: string }[] };
    expect(problem.code).toBe('validation_failed');
    const paths = problem.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['worker_id', 'free_slots', 'running[0].attempt']));
  });

  it('answers the intervals: a third of the lease, and the lease', async () => {
    const answer = await beat(world, { worker_id: 'w-intervals' });
    expect(answer).toMatchObject({ assignments: [], cancel: [], pause: [], lost: [], heartbeat_s: 1, lease_s: 3 });
  });
});

describe('the claim', () => {
  it('hands a queued run with its committed definition, params and targets, running in attempt 1 with a run.status event', async () => {
    const id = await startRun(world, { change_id: 'CHG42' });
    const answer = await beat(world, { worker_id: 'w-claim', free_slots: 1 });
    expect(answer.assignments).toHaveLength(1);
    const [assignment] = answer.assignments;
    expect(assignment).toMatchObject({
      run_id: id,
      attempt: 1,
      org_id: world.orgId,
      flow_id: world.flowId,
      flow_version: 1,
      flow_name: 'two-steps',
      workflow_id: `run-${id}`,
      params: { change_id: 'CHG42' },
      targets: {},
      run_vars: {},
      status: 'running',
    });
    expect(assignment!.definition).toMatchObject({ steps: TWO_STEPS.steps });
    const row = await runRow(id);
    expect(row).toMatchObject({ status: 'running', worker_id: 'w-claim', attempt: 1 });
    expect(row.started_at).not.toBeNull();
    expect(row.claimed_at).not.toBeNull();
    expect(new Date(row.lease_expires_at).toISOString()).toBe(assignment!.lease_expires_at);
    const log = await events(id);
    expect(log.map((e) => [Number(e.seq), e.type])).toEqual([[1, 'run.status']]);
    expect(log[0]!.data).toEqual({ from: 'queued', to: 'running', worker_id: 'w-claim', attempt: 1 });
    expect(Number(row.event_seq)).toBe(1);
  });

  it("tells the live streams of the claim's run.status event", async () => {
    const heard: string[] = [];
    const listening = await new Promise<{ stop(): Promise<void> }>((resolve) => {
      const listener = world.daemon.services.db.listen(RUN_EVENTS_CHANNEL, (signal, payload) => {
        if (signal === 'connected') resolve(listener);
        else if (payload) heard.push(payload);
      });
    });
    try {
      const id = await startRun(world);
      await beat(world, { worker_id: 'w-notify', free_slots: 1 });
      for (let i = 0; i < 50 && !heard.includes(`${id}:1`); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard).toContain(`${id}:1`);
    } finally {
      await listening.stop();
    }
  });

  it('claims oldest first, no more than the free slots', async () => {
    const first = await startRun(world);
    const second = await startRun(world);
    const third = await startRun(world);
    const answer = await beat(world, { worker_id: 'w-order', free_slots: 2 });
    expect(answer.assignments.map((a) => a.run_id)).toEqual([first, second]);
    expect((await runRow(third)).status).toBe('queued');
  });

  it('hands each of 20 queued runs to exactly one of two concurrent heartbeats', async () => {
    const ids = [];
    for (let i = 0; i < 20; i += 1) ids.push(await startRun(world));
    const taken: string[] = [];
    await Promise.all(
      ['w-a', 'w-b'].map(async (worker) => {
        for (let round = 0; round < 20; round += 1) {
          const answer = await beat(world, { worker_id: worker, free_slots: 3 });
          taken.push(...answer.assignments.map((a) => a.run_id));
          if (answer.assignments.length === 0) return;
        }
      }),
    );
    expect(taken.sort()).toEqual([...ids].sort());
    const rows = await knex()('runs').whereIn('id', ids).select('status', 'attempt');
    expect(rows.every((r: { status: string; attempt: number }) => r.status === 'running' && r.attempt === 1)).toBe(true);
  });

  it('does not claim a paused queued run, and claims it once resumed', async () => {
    const id = await startRun(world);
    await control(world, id, 'pause');
    expect((await beat(world, { worker_id: 'w-pause', free_slots: 1 })).assignments).toEqual([]);
    await control(world, id, 'resume');
    const answer = await beat(world, { worker_id: 'w-pause', free_slots: 1 });
    expect(answer.assignments.map((a) => a.run_id)).toEqual([id]);
  });

  it('claims nothing for a draining worker', async () => {
    const id = await startRun(world);
    const answer = await beat(world, { worker_id: 'w-drain', free_slots: 5, draining: true });
    expect(answer.assignments).toEqual([]);
    expect((await runRow(id)).status).toBe('queued');
  });

  it('fails a run whose flow was purged with definition_unavailable instead of handing it out', async () => {
    const id = await startRun(world);
    await knex()('runs').where({ id }).update({ flow_id: null });
    const answer = await beat(world, { worker_id: 'w-purged', free_slots: 1 });
    expect(answer.assignments).toEqual([]);
    const row = await runRow(id);
    expect(row.status).toBe('failed');
    expect(row.lease_expires_at).toBeNull();
    expect(row.error_json).toMatchObject({ code: 'definition_unavailable' });
    expect((await events(id)).map((e) => e.data.to)).toEqual(['running', 'failed']);
  });
});

describe('the long-poll', () => {
  it('waits for a run to be admitted and answers with it', async () => {
    const waiting = beat(world, { worker_id: 'w-poll', free_slots: 1, wait_s: 20 });
    // Let the heartbeat reach its wait (it has nothing yet), then admit.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const id = await startRun(world);
    const answer = await waiting;
    expect(answer.assignments.map((a) => a.run_id)).toEqual([id]);
    expect((await runRow(id)).worker_id).toBe('w-poll');
  });

  it('claims nothing for a caller that hung up while waiting', async () => {
    const hangUp = new AbortController();
    const waiting = fetch(`${world.daemon.url}/internal/workers/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-token': INTERNAL_TOKEN },
      body: JSON.stringify({ worker_id: 'w-gone', free_slots: 1, wait_s: 20 }),
      signal: hangUp.signal,
    }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    hangUp.abort();
    await waiting;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const id = await startRun(world);
    // Had the abandoned wait gone on, the queued run's notification would have woken it to claim the run.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await runRow(id)).toMatchObject({ status: 'queued', worker_id: null });
  });

  it('tells the waiting worker of a cancel and a pause of its runs', async () => {
    const [cancelled, paused] = [await startRun(world), await startRun(world)];
    const claimed = await beat(world, { worker_id: 'w-ctl', free_slots: 2 });
    const running = claimed.assignments.map((a) => ({ run_id: a.run_id, attempt: a.attempt }));
    expect(running.map((r) => r.run_id).sort()).toEqual([cancelled, paused].sort());
    // Nothing changed since they were handed out: the heartbeat waits.
    const waitingForCancel = beat(world, { worker_id: 'w-ctl', running, wait_s: 20 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await control(world, cancelled!, 'cancel');
    expect(await waitingForCancel).toMatchObject({ cancel: [cancelled], pause: [], lost: [] });
    // The cancelled run keeps its lease while the worker names it.
    expect((await runRow(cancelled!)).lease_expires_at).not.toBeNull();

    const others = running.filter((r) => r.run_id === paused);
    const waitingForPause = beat(world, { worker_id: 'w-ctl', running: others, wait_s: 20 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await control(world, paused!, 'pause');
    expect(await waitingForPause).toMatchObject({ cancel: [], pause: [paused], lost: [] });
  });

  // The heartbeat waits 20 s; the test allows 10: a heartbeat the control notification did not end would
  // answer only at its deadline (with the same lists), so only the limit can tell the two apart.
  it('answers at once when its worker is told of a change stamped before the heartbeat began', { timeout: 10_000 }, async () => {
    const id = await startRun(world);
    const claimed = await beat(world, { worker_id: 'w-stale', free_slots: 1 });
    const running = claimed.assignments.map((a) => ({ run_id: a.run_id, attempt: a.attempt }));
    const waiting = beat(world, { worker_id: 'w-stale', running, wait_s: 20 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A cancel whose transaction began before this heartbeat did carries an `updated_at` older than it.
    await world.daemon.services.db
      .knex('runs')
      .where({ id })
      .update({
        status: 'cancelled',
        cancelled_at: world.daemon.services.db.knex.fn.now(),
        finished_at: world.daemon.services.db.knex.fn.now(),
        updated_at: world.daemon.services.db.knex.raw(`now() - interval '1 minute'`),
      });
    expect(await waiting).toMatchObject({ cancel: [id], pause: [], lost: [] });
  });

  it('lists runs the worker names but no longer holds as lost: reaped, another attempt, unknown', async () => {
    const id = await startRun(world);
    const [assignment] = (await beat(world, { worker_id: 'w-lost', free_slots: 1 })).assignments;
    const unknown = '00000000-0000-4000-8000-000000000000';
    const answer = await beat(world, {
      worker_id: 'w-lost',
      running: [
        { run_id: id, attempt: assignment!.attempt + 1 },
        { run_id: unknown, attempt: 1 },
        { run_id: 'not-a-uuid', attempt: 1 },
      ],
    });
    expect(answer.lost.sort()).toEqual([id, unknown, 'not-a-uuid'].sort());
    // Held in its own attempt it is not lost; reaped, it is.
    expect((await beat(world, { worker_id: 'w-lost', running: [{ run_id: id, attempt: 1 }] })).lost).toEqual([]);
    await knex()('runs')
      .where({ id })
      .update({ lease_expires_at: knex().raw(`now() - interval '1 second'`) });
    await reaperOf(world).reapExpiredLeases();
    expect((await beat(world, { worker_id: 'w-lost', running: [{ run_id: id, attempt: 1 }] })).lost).toEqual([id]);
  });
});

describe('released runs', () => {
  it('requeues a run that started no step, and fails one that did with worker_lost', async () => {
    const [fresh, busy] = [await startRun(world), await startRun(world)];
    const claimed = (await beat(world, { worker_id: 'w-rel', free_slots: 2 })).assignments;
    expect(claimed).toHaveLength(2);
    await knex()('step_runs').insert({ run_id: busy, attempt: 1, step_id: 'first', handler: 'general.noop', started_at: knex().fn.now() });
    const released = claimed.map((a) => ({ run_id: a.run_id, attempt: a.attempt }));
    const answer = await beat(world, { worker_id: 'w-rel', running: released, released });
    expect(answer.lost).toEqual([]);
    const requeued = await runRow(fresh!);
    expect(requeued).toMatchObject({ status: 'queued', worker_id: null, started_at: null, lease_expires_at: null, claimed_at: null });
    const failed = await runRow(busy!);
    expect(failed).toMatchObject({ status: 'failed', lease_expires_at: null });
    expect(failed.error_json).toMatchObject({ code: 'worker_lost', worker_id: 'w-rel', attempt: 1 });
    expect((await events(fresh!)).at(-1)!.data).toMatchObject({ from: 'running', to: 'queued', reason: 'requeued' });
    expect((await events(busy!)).at(-1)!.data).toMatchObject({ from: 'running', to: 'failed', reason: 'worker_lost' });
    // Requeued, it is claimed again in attempt 2.
    const again = await beat(world, { worker_id: 'w-rel-2', free_slots: 1 });
    expect(again.assignments.map((a) => [a.run_id, a.attempt])).toEqual([[fresh, 2]]);
  });
});
