import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_EVENTS_CHANNEL } from '../src/daemon/db/channels.js';
import { MAX_EVENT_BYTES, MAX_EVENTS_PER_BATCH } from '../src/shared/api/run-callbacks.js';
import {
  callback,
  eventsOf,
  heldRun,
  holdRun,
  json,
  problemOf,
  startCallbacksWorld,
  type CallbacksWorld,
} from './helpers/callbacks-fixtures.js';
import { BACKEND } from './helpers/backend.js';
import { UNKNOWN_ID } from './helpers/runs-fixtures.js';

let world: CallbacksWorld;
const knex = () => world.knex;

beforeAll(async () => {
  world = await startCallbacksWorld();
});
afterAll(async () => {
  await world?.close();
});

interface Answer {
  accepted: number;
  duplicates: number;
  last_seq: number;
}

const logs = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ worker_seq: from + i, type: 'log', data: { level: 'info', message: `line ${from + i}` } }));

function post(runId: string, events: unknown, options: object = {}): Promise<Response> {
  return callback(world, 'POST', `/internal/runs/${runId}/events`, { body: { events }, ...options });
}

describe('POST /internal/runs/{run_id}/events', () => {
  it('writes the batch numbered after the daemon events, in worker_seq order, with the attempt and worker', async () => {
    const id = await heldRun(world);
    await fetch(`${world.daemon.url}/runs/${id}/pause`, { method: 'POST', headers: { authorization: world.operator, 'x-org-id': 'acme' } });
    const batch = [
      { worker_seq: 2, type: 'step.output', step_id: 'noop', data: { x: 1 } },
      { worker_seq: 1, type: 'log', ts: '2026-01-02T03:04:05.000Z', data: { level: 'info', message: 'hi' } },
      { worker_seq: 3, type: 'handler_unavailable' },
    ];
    expect(await json<Answer>(await post(id, batch))).toEqual({ accepted: 3, duplicates: 0, last_seq: 4 });
    const events = await eventsOf(knex(), id);
    expect(events.map((e) => [Number(e.seq), e.type, e.worker_seq === null ? null : Number(e.worker_seq)])).toEqual([
      [1, 'run.status', null],
      [2, 'log', 1],
      [3, 'step.output', 2],
      [4, 'handler_unavailable', 3],
    ]);
    const stored = await knex()('run_events').where({ run_id: id, seq: 2 }).first();
    expect(stored).toMatchObject({ attempt: 1, worker_id: 'w1', data: { level: 'info', message: 'hi' } });
    expect(new Date(stored.ts).toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect(await knex()('run_events').where({ run_id: id, seq: 4 }).first()).toMatchObject({ data: {} });
    expect(Number((await knex()('runs').where({ id }).first()).event_seq)).toBe(4);
  });

  it('tells the live streams `<run_id>:<last seq>` once a batch with new events has committed', async () => {
    const id = await heldRun(world);
    const heard: string[] = [];
    let connected!: () => void;
    const listening = new Promise<void>((resolve) => (connected = resolve));
    const listener = world.daemon.services.db.listen(RUN_EVENTS_CHANNEL, (signal, payload) => {
      if (signal === 'connected') connected();
      else if (payload?.startsWith(id)) heard.push(payload);
    });
    try {
      await listening;
      await json(await post(id, logs(1, 3)));
      await json(await post(id, logs(1, 3)));
      await json(await post(id, logs(4, 1)));
      // Sent after each answer, not waited for: two may arrive in either order (a stream reads past its last seq).
      await expect.poll(() => [...heard].sort()).toEqual([`${id}:3`, `${id}:4`]);
    } finally {
      await listener.stop();
    }
  });

  it('adds nothing for a retried batch, and counts duplicates within one batch once', async () => {
    const id = await heldRun(world);
    expect(await json<Answer>(await post(id, logs(1, 5)))).toEqual({ accepted: 5, duplicates: 0, last_seq: 5 });
    expect(await json<Answer>(await post(id, logs(1, 5)))).toEqual({ accepted: 0, duplicates: 5, last_seq: 5 });
    const mixed = [...logs(4, 4), ...logs(7, 1)];
    expect(await json<Answer>(await post(id, mixed))).toEqual({ accepted: 2, duplicates: 3, last_seq: 7 });
    const events = await eventsOf(knex(), id);
    expect(events.map((e) => Number(e.seq))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(events.map((e) => Number(e.worker_seq))).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('takes the same worker_seq again in a new attempt', async () => {
    const id = await heldRun(world);
    await json(await post(id, logs(1, 2)));
    await holdRun(knex(), id, 'w2', 2);
    expect(await json<Answer>(await post(id, logs(1, 2), { worker: 'w2', attempt: 2 }))).toEqual({
      accepted: 2,
      duplicates: 0,
      last_seq: 4,
    });
  });

  it('keeps numbers gap-free under concurrent batches of one run', async () => {
    const id = await heldRun(world);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(id, logs(i * 10 + 1, 10)).then((r) => json<Answer>(r))));
    expect(answers.reduce((sum, a) => sum + a.accepted, 0)).toBe(80);
    // A retry of every batch at once beside new ones: only the new ones count.
    const again = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => post(id, logs(i * 10 + 1, 10))),
      post(id, logs(81, 10)),
      post(id, logs(81, 10)),
    ]).then((rs) => Promise.all(rs.map((r) => json<Answer>(r))));
    expect(again.reduce((sum, a) => sum + a.accepted, 0)).toBe(10);
    const events = await eventsOf(knex(), id);
    expect(events.map((e) => Number(e.seq))).toEqual(Array.from({ length: 90 }, (_, i) => i + 1));
    expect(new Set(events.map((e) => Number(e.worker_seq))).size).toBe(90);
    // Each batch's events are contiguous and in worker_seq order.
    for (let b = 0; b < 9; b += 1) {
      const seqs = events.filter((e) => Math.ceil(Number(e.worker_seq) / 10) === b + 1).map((e) => Number(e.seq));
      expect(seqs).toEqual(Array.from({ length: 10 }, (_, i) => seqs[0]! + i));
    }
    expect(Number((await knex()('runs').where({ id }).first()).event_seq)).toBe(90);
  });

  // PostgreSQL only: the embedded database's one connection cannot hold a transaction open beside a request.
  it.skipIf(BACKEND === 'pglite')(
    'stays gap-free when a copy of its events commits while it waits for the run (the batch takes the locked path)',
    async () => {
      const id = await heldRun(world);
      await json(await post(id, logs(1, 2)));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      // Another request's batch of worker_seq 3-4, as its statement would write it, holding the run's row.
      const other = knex().transaction(async (trx) => {
        await trx('runs').where({ id }).update({ event_seq: 4 });
        await trx('run_events').insert(
          [3, 4].map((w) => ({ run_id: id, seq: w, type: 'log', attempt: 1, worker_id: 'w1', worker_seq: w })),
        );
        locked();
        await released;
      });
      await isLocked;
      const retried = post(id, logs(3, 3));
      // Long enough for the request to be waiting on the row; the outcome does not depend on it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      release();
      await other;
      expect(await json<Answer>(await retried)).toEqual({ accepted: 1, duplicates: 2, last_seq: 5 });
      const events = await eventsOf(knex(), id);
      expect(events.map((e) => [Number(e.seq), Number(e.worker_seq)])).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
        [5, 5],
      ]);
    },
  );

  it('takes the last events of a run its user cancelled from its holder', async () => {
    const id = await heldRun(world);
    await fetch(`${world.daemon.url}/runs/${id}/cancel`, {
      method: 'POST',
      headers: { authorization: world.operator, 'x-org-id': 'acme' },
    });
    expect(await json<Answer>(await post(id, logs(1, 1)))).toMatchObject({ accepted: 1, last_seq: 2 });
  });

  it(`refuses more than ${MAX_EVENTS_PER_BATCH} events with 413 before validating them, writing nothing`, async () => {
    const id = await heldRun(world);
    const tooMany = Array.from({ length: MAX_EVENTS_PER_BATCH + 1 }, () => ({ bogus: true }));
    expect(await problemOf(await post(id, tooMany))).toEqual({ status: 413, code: 'event_batch_too_large' });
    expect(await problemOf(await post(id, logs(1, MAX_EVENTS_PER_BATCH + 1)))).toEqual({ status: 413, code: 'event_batch_too_large' });
    expect(await json<Answer>(await post(id, logs(1, MAX_EVENTS_PER_BATCH)))).toMatchObject({ accepted: MAX_EVENTS_PER_BATCH });
  });

  it('refuses a batch holding an event larger than the limit with 413, writing none of it', async () => {
    const id = await heldRun(world);
    const big = { worker_seq: 3, type: 'log', data: { message: 'x'.repeat(MAX_EVENT_BYTES) } };
    expect(await problemOf(await post(id, [...logs(1, 2), big]))).toEqual({ status: 413, code: 'event_too_large' });
    // Counted in UTF-8 bytes: under the limit in characters, over it in bytes.
    const wide = { worker_seq: 3, type: 'log', data: { message: 'é'.repeat(MAX_EVENT_BYTES / 2) } };
    expect(await problemOf(await post(id, [wide]))).toEqual({ status: 413, code: 'event_too_large' });
    expect(await eventsOf(knex(), id)).toEqual([]);
  });

  it.each([
    [{ events: [] }, ['events']],
    [{ events: [{ worker_seq: 0, type: 'log' }] }, ['events[0].worker_seq']],
    [{ events: [{ worker_seq: 1, type: 'Log!' }] }, ['events[0].type']],
    [
      {
        events: [
          { worker_seq: 1, type: 'log', data: [] },
          { worker_seq: 2, type: 'log', ts: 'yesterday' },
        ],
      },
      ['events[0].data', 'events[1].ts'],
    ],
    [{ events: [{ worker_seq: 1, type: 'log', extra: 1 }] }, ['events[0]']],
    [{ events: [{ worker_seq: 1, type: 'log', data: { m: 'a\u0000b' } }] }, ['events[0].data.m']],
    [{}, ['events']],
  ])('answers 422 with paths for %j, writing nothing', async (body, paths) => {
    const id = await heldRun(world);
    const problem = await problemOf(await callback(world, 'POST', `/internal/runs/${id}/events`, { body }));
    expect(problem).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(problem.errors!.map((e) => e.path)).toEqual(paths);
    expect(await eventsOf(knex(), id)).toEqual([]);
  });

  it('is fenced: 404 unknown run, 409 run_not_held for another worker or attempt, 422 without headers', async () => {
    const id = await heldRun(world);
    expect(await problemOf(await post(UNKNOWN_ID, logs(1, 1)))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await problemOf(await post(id, logs(1, 1), { worker: 'w9' }))).toEqual({ status: 409, code: 'run_not_held' });
    expect(await problemOf(await post(id, logs(1, 1), { attempt: 2 }))).toEqual({ status: 409, code: 'run_not_held' });
    expect((await problemOf(await post(id, logs(1, 1), { attempt: null }))).errors!.map((e) => e.path)).toEqual(['headers.x-run-attempt']);
    await knex()('runs').where({ id }).update({ lease_expires_at: null, status: 'succeeded' });
    expect(await problemOf(await post(id, logs(1, 1)))).toEqual({ status: 409, code: 'run_not_held' });
    expect(await eventsOf(knex(), id)).toEqual([]);
  });
});
