import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SAMPLE_DATA_BYTES, MAX_SAMPLE_SEQ, MAX_SAMPLES_PER_BATCH } from '../src/shared/api/monitors.js';
import { callback, heldRun, json, problemOf, startCallbacksWorld, type CallbacksWorld } from './helpers/callbacks-fixtures.js';
import { openMonitor, postSamples, samplesOf, storedSeqs, type MonitorAnswer } from './helpers/monitors-fixtures.js';
import { UNKNOWN_ID } from './helpers/runs-fixtures.js';

const CAP = 20;
const MONITORS_PER_RUN = 5;
let world: CallbacksWorld;
const knex = () => world.knex;

beforeAll(async () => {
  world = await startCallbacksWorld({ SERVICE_MONITOR_MAX_SAMPLES: String(CAP), SERVICE_MONITOR_MAX_PER_RUN: String(MONITORS_PER_RUN) });
});
afterAll(async () => {
  await world?.close();
});

const monitorCount = async (runId: string) =>
  Number(((await knex()('monitors').where({ run_id: runId }).count({ n: '*' })) as { n: string }[])[0]!.n);
const getMonitor = async (id: string) => json<MonitorAnswer>(await callback(world, 'GET', `/api/v1/monitors/${id}`));

describe('POST /api/v1/monitors', () => {
  it('opens a monitor of the held run with the run organization, and a retry of its key answers the same one with 200', async () => {
    const runId = await heldRun(world);
    const created = await openMonitor(world, runId, 'ping', { step_id: 'probe', name: 'Ping core' });
    expect(created).toMatchObject({
      run_id: runId,
      org_id: world.orgId,
      monitor_key: 'ping',
      name: 'Ping core',
      step_id: 'probe',
      kind: 'connectivity.tcp_connect',
      target: '10.0.0.1:22',
      unit: 'ms',
      status: 'open',
      summary: {},
      sample_count: 0,
      last_seq: null,
      last_sample: null,
      closed_at: null,
    });
    const again = await callback(world, 'POST', '/api/v1/monitors', { body: { run_id: runId, monitor_key: 'ping', kind: 'other.kind' } });
    expect(again.status).toBe(200);
    expect((await json<MonitorAnswer>(again)).id).toBe(created.id);
    const other = await openMonitor(world, runId, 'latency');
    expect(other.id).not.toBe(created.id);
    expect(other.name).toBe('latency');
    expect(await monitorCount(runId)).toBe(2);
  });

  it('opens one monitor when the same key is created at once by several calls: one 201, the others 200 with it', async () => {
    const runId = await heldRun(world);
    const body = { run_id: runId, monitor_key: 'raced', kind: 'connectivity.tcp_connect' };
    const answers = await Promise.all(Array.from({ length: 4 }, () => callback(world, 'POST', '/api/v1/monitors', { body })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(await Promise.all(answers.map(async (a) => (await json<MonitorAnswer>(a, a.status)).id))).size).toBe(1);
    expect(await monitorCount(runId)).toBe(1);
  });

  it('refuses a run it does not hold (409 run_not_held), an unknown run (404), missing fencing headers (422): nothing stored', async () => {
    const runId = await heldRun(world);
    const body = { run_id: runId, monitor_key: 'ping', kind: 'connectivity.tcp_connect' };
    expect(await problemOf(await callback(world, 'POST', '/api/v1/monitors', { body, worker: 'w2' }))).toMatchObject({
      status: 409,
      code: 'run_not_held',
    });
    expect(await problemOf(await callback(world, 'POST', '/api/v1/monitors', { body, attempt: 2 }))).toMatchObject({
      status: 409,
      code: 'run_not_held',
    });
    const noHeaders = await problemOf(await callback(world, 'POST', '/api/v1/monitors', { body, worker: null }));
    expect(noHeaders).toMatchObject({ status: 422, code: 'validation_failed', errors: [{ path: 'headers.x-worker-id' }] });
    const unknown = await callback(world, 'POST', '/api/v1/monitors', { body: { ...body, run_id: UNKNOWN_ID } });
    expect(await problemOf(unknown)).toMatchObject({ status: 404, code: 'resource_not_found' });
    expect(await monitorCount(runId)).toBe(0);
  });

  it(`caps a run at SERVICE_MONITOR_MAX_PER_RUN (${MONITORS_PER_RUN}) monitors, closed ones counted: one more is 413 monitor_run_limit, nothing created; a retried key is still answered`, async () => {
    const runId = await heldRun(world);
    const opened = [];
    for (let i = 0; i < MONITORS_PER_RUN; i += 1) opened.push(await openMonitor(world, runId, `m${i}`));
    expect(await json(await callback(world, 'PATCH', `/api/v1/monitors/${opened[0]!.id}`, { body: { status: 'closed' } }))).toMatchObject({
      status: 'closed',
    });
    const body = { run_id: runId, monitor_key: 'one-more', kind: 'connectivity.tcp_connect' };
    const refused = await callback(world, 'POST', '/api/v1/monitors', { body });
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({ code: 'monitor_run_limit', limit: MONITORS_PER_RUN, run_id: runId });
    expect(await monitorCount(runId)).toBe(MONITORS_PER_RUN);
    const retried = await callback(world, 'POST', '/api/v1/monitors', { body: { ...body, monitor_key: 'm1' } });
    expect(retried.status).toBe(200);
    expect((await json<MonitorAnswer>(retried)).id).toBe(opened[1]!.id);
    // The cap is the run's: another run opens its own.
    await openMonitor(world, await heldRun(world), 'one-more');
  });

  it('refuses malformed bodies with 422 naming the field, and a missing worker token with 401', async () => {
    const runId = await heldRun(world);
    const bad = [
      { run_id: 'not-a-uuid', monitor_key: 'ping', kind: 'x' },
      { run_id: runId, monitor_key: 'ping' },
      { run_id: runId, monitor_key: 'has space', kind: 'x' },
      { run_id: runId, monitor_key: 'ping', kind: 'x', surprise: true },
      { run_id: runId, monitor_key: 'k'.repeat(129), kind: 'x' },
      { run_id: runId, monitor_key: 'ping', kind: 'x', step_id: 'Bad-Step' },
    ];
    for (const body of bad) {
      expect(await problemOf(await callback(world, 'POST', '/api/v1/monitors', { body }))).toMatchObject({
        status: 422,
        code: 'validation_failed',
      });
    }
    const nul = await callback(world, 'POST', '/api/v1/monitors', {
      rawBody: JSON.stringify({ run_id: runId, monitor_key: 'ping', kind: 'x', name: 'a\u0000b' }),
    });
    expect(await problemOf(nul)).toMatchObject({ status: 422, code: 'validation_failed' });
    const noToken = await callback(world, 'POST', '/api/v1/monitors', {
      body: { run_id: runId, monitor_key: 'ping', kind: 'x' },
      token: null,
    });
    expect(noToken.status).toBe(401);
    expect(await monitorCount(runId)).toBe(0);
  });
});

describe('GET and PATCH /api/v1/monitors/{monitor_db_id}', () => {
  it('reads a monitor; an unknown or malformed id is 404', async () => {
    const runId = await heldRun(world);
    const created = await openMonitor(world, runId);
    expect(await getMonitor(created.id)).toEqual(created);
    expect(await problemOf(await callback(world, 'GET', `/api/v1/monitors/${UNKNOWN_ID}`))).toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await problemOf(await callback(world, 'GET', '/api/v1/monitors/nope'))).toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
  });

  it('takes the summary and names, closes the monitor, and then answers 409 monitor_closed', async () => {
    const runId = await heldRun(world);
    const created = await openMonitor(world, runId);
    const patched = await json<MonitorAnswer>(
      await callback(world, 'PATCH', `/api/v1/monitors/${created.id}`, { body: { summary: { loss_pct: 0, p95_ms: 12.5 }, unit: 'µs' } }),
    );
    expect(patched).toMatchObject({ summary: { loss_pct: 0, p95_ms: 12.5 }, unit: 'µs', status: 'open' });
    const closed = await json<MonitorAnswer>(
      await callback(world, 'PATCH', `/api/v1/monitors/${created.id}`, { body: { status: 'closed' } }),
    );
    expect(closed.status).toBe('closed');
    expect(closed.closed_at).not.toBeNull();
    const again = await callback(world, 'PATCH', `/api/v1/monitors/${created.id}`, { body: { summary: { late: true } } });
    expect(await problemOf(again)).toMatchObject({ status: 409, code: 'monitor_closed' });
    expect((await getMonitor(created.id)).summary).toEqual({ loss_pct: 0, p95_ms: 12.5 });
  });

  it('refuses another worker (409), an unknown monitor (404) and bad bodies (422), changing nothing', async () => {
    const runId = await heldRun(world);
    const created = await openMonitor(world, runId);
    const path = `/api/v1/monitors/${created.id}`;
    expect(await problemOf(await callback(world, 'PATCH', path, { body: { name: 'x' }, worker: 'w2' }))).toMatchObject({
      status: 409,
      code: 'run_not_held',
    });
    expect(await problemOf(await callback(world, 'PATCH', `/api/v1/monitors/${UNKNOWN_ID}`, { body: { name: 'x' } }))).toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
    for (const body of [{}, { status: 'open' }, { sample_count: 3 }, { summary: { big: 'x'.repeat(17 * 1024) } }]) {
      expect(await problemOf(await callback(world, 'PATCH', path, { body }))).toMatchObject({ status: 422, code: 'validation_failed' });
    }
    expect(await getMonitor(created.id)).toEqual(created);
  });
});

describe('POST /api/v1/monitor-samples/batch', () => {
  it('stores a batch, answers duplicates of a retry and within a batch, and keeps the count and last sample', async () => {
    const runId = await heldRun(world);
    const m = await openMonitor(world, runId);
    expect(await json(await postSamples(world, samplesOf(m.id, 1, 5)))).toEqual({ accepted: 5, duplicates: 0 });
    expect(await json(await postSamples(world, samplesOf(m.id, 1, 5)))).toEqual({ accepted: 0, duplicates: 5 });
    // Overlapping, and one seq twice in the batch: 6 and 7 are new.
    const overlapping = [...samplesOf(m.id, 4, 4), samplesOf(m.id, 7, 1)[0]];
    expect(await json(await postSamples(world, overlapping))).toEqual({ accepted: 2, duplicates: 3 });
    expect(await storedSeqs(world, m.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const read = await getMonitor(m.id);
    expect(read).toMatchObject({ sample_count: 7, last_seq: 7, last_sample: { seq: 7, value: 70, status: 'ok', data: { rtt_ms: 7 } } });
    // A late lower seq is stored but does not move the last sample.
    await knex()('monitor_samples').where({ monitor_id: m.id, seq: 2 }).delete();
    await knex()('monitors').where({ id: m.id }).update({ sample_count: 6 });
    expect(await json(await postSamples(world, samplesOf(m.id, 2, 1)))).toEqual({ accepted: 1, duplicates: 0 });
    expect(await getMonitor(m.id)).toMatchObject({ sample_count: 7, last_seq: 7 });
  });

  it('stores each sample once when the same batch races itself, and numbers the stream gap-free', async () => {
    const runId = await heldRun(world);
    const m = await openMonitor(world, runId);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        postSamples(world, samplesOf(m.id, 1, 10)).then((r) => json<{ accepted: number; duplicates: number }>(r)),
      ),
    );
    expect(answers.reduce((sum, a) => sum + a.accepted, 0)).toBe(10);
    expect(answers.reduce((sum, a) => sum + a.duplicates, 0)).toBe(40);
    expect(await storedSeqs(world, m.id)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    const positions = (await knex()('monitor_samples').where({ run_id: runId }).orderBy('stream_seq').pluck('stream_seq')).map(Number);
    expect(positions).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(await getMonitor(m.id)).toMatchObject({ sample_count: 10, last_seq: 10 });
  });

  it("takes samples of several monitors of one run, numbered gap-free in the run's monitor stream", async () => {
    const runId = await heldRun(world);
    const a = await openMonitor(world, runId, 'a');
    const b = await openMonitor(world, runId, 'b');
    const mixed = [samplesOf(a.id, 1, 1)[0], samplesOf(b.id, 1, 1)[0], samplesOf(a.id, 2, 1)[0]];
    expect(await json(await postSamples(world, mixed))).toEqual({ accepted: 3, duplicates: 0 });
    expect(await json(await postSamples(world, [...mixed, samplesOf(b.id, 2, 1)[0]]))).toEqual({ accepted: 1, duplicates: 3 });
    const rows = (await knex()('monitor_samples')
      .where({ run_id: runId })
      .orderBy('stream_seq')
      .select('monitor_id', 'seq', 'stream_seq')) as {
      monitor_id: string;
      seq: string;
      stream_seq: string;
    }[];
    expect(rows.map((r) => [r.monitor_id, Number(r.seq), Number(r.stream_seq)])).toEqual([
      [a.id, 1, 1],
      [b.id, 1, 2],
      [a.id, 2, 3],
      [b.id, 2, 4],
    ]);
    expect(Number((await knex()('runs').where({ id: runId }).first('monitor_seq')).monitor_seq)).toBe(4);
    expect(await getMonitor(b.id)).toMatchObject({ sample_count: 2, last_seq: 2 });
  });

  it('refuses a batch too large (413), a sample too large (413), an unknown monitor (404), two runs (422): nothing stored', async () => {
    const runId = await heldRun(world);
    const m = await openMonitor(world, runId);
    const tooMany = await postSamples(world, samplesOf(m.id, 1, MAX_SAMPLES_PER_BATCH + 1));
    expect(await problemOf(tooMany)).toMatchObject({ status: 413, code: 'monitor_batch_too_large' });
    const fat = [...samplesOf(m.id, 1, 1), { monitor_id: m.id, seq: 2, data: { blob: 'x'.repeat(MAX_SAMPLE_DATA_BYTES) } }];
    expect(await problemOf(await postSamples(world, fat))).toMatchObject({ status: 413, code: 'monitor_sample_too_large' });
    const unknown = [...samplesOf(m.id, 1, 2), ...samplesOf(UNKNOWN_ID, 1, 1)];
    expect(await problemOf(await postSamples(world, unknown))).toMatchObject({ status: 404, code: 'resource_not_found' });
    expect(await problemOf(await postSamples(world, samplesOf('not-a-uuid', 1, 1)))).toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
    const otherRun = await openMonitor(world, await heldRun(world));
    const twoRuns = await postSamples(world, [...samplesOf(m.id, 1, 1), ...samplesOf(otherRun.id, 1, 1)]);
    expect(await problemOf(twoRuns)).toMatchObject({ status: 422, code: 'validation_failed', errors: [{ path: 'samples.1.monitor_id' }] });
    expect(await storedSeqs(world, m.id)).toEqual([]);
    expect(await storedSeqs(world, otherRun.id)).toEqual([]);
  });

  it('refuses malformed samples with 422 and another worker with 409, storing nothing', async () => {
    const runId = await heldRun(world);
    const m = await openMonitor(world, runId);
    const bad = [
      [],
      [{ monitor_id: m.id, seq: 0 }],
      [{ monitor_id: m.id }],
      [{ monitor_id: m.id, seq: 1, value: 'fast' }],
      [{ monitor_id: m.id, seq: 1, ts: 'yesterday' }],
      [{ monitor_id: m.id, seq: 1, extra: 1 }],
      [{ monitor_id: m.id, seq: 1.5 }],
      [{ monitor_id: m.id, seq: MAX_SAMPLE_SEQ + 1 }],
    ];
    for (const samples of bad)
      expect(await problemOf(await postSamples(world, samples))).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(await problemOf(await postSamples(world, samplesOf(m.id, 1, 1), { worker: 'w2' }))).toMatchObject({
      status: 409,
      code: 'run_not_held',
    });
    expect(await problemOf(await postSamples(world, samplesOf(m.id, 1, 1), { attempt: null }))).toMatchObject({
      status: 422,
      code: 'validation_failed',
      errors: [{ path: 'headers.x-run-attempt' }],
    });
    expect(await storedSeqs(world, m.id)).toEqual([]);
  });

  it('refuses a time PostgreSQL cannot store, or would read back as another, with 422 at its ts: nothing stored', async () => {
    const runId = await heldRun(world);
    const m = await openMonitor(world, runId);
    // Valid ISO 8601, but year 0 does not exist for PostgreSQL, its offsets stop at 15:59, and before 1970 (or past
    // 9999) is no worker's clock.
    for (const ts of [
      '0000-01-01T00:00:00Z',
      '2026-01-01T00:00:00+16:00',
      '2026-01-01T00:00:00-23:59',
      '0050-06-01T00:00:00Z',
      '1969-12-31T23:59:59Z',
    ]) {
      expect(await problemOf(await postSamples(world, [{ monitor_id: m.id, seq: 1, ts }])), ts).toMatchObject({
        status: 422,
        code: 'validation_failed',
        errors: [{ path: 'samples[0].ts' }],
      });
    }
    expect(await storedSeqs(world, m.id)).toEqual([]);
    const edges = [
      { monitor_id: m.id, seq: 1, ts: '1970-01-01T00:00:00.000Z' },
      { monitor_id: m.id, seq: 2, ts: '2026-01-01T00:00:00+15:59' },
      { monitor_id: m.id, seq: 3, ts: '9999-12-31T23:59:59.999Z' },
    ];
    expect(await json(await postSamples(world, edges))).toEqual({ accepted: 3, duplicates: 0 });
    const stored = (await knex()('monitor_samples').where({ monitor_id: m.id }).orderBy('seq').select('ts')) as { ts: Date | string }[];
    expect(stored.map((row) => new Date(row.ts).toISOString())).toEqual([
      '1970-01-01T00:00:00.000Z',
      '2025-12-31T08:01:00.000Z',
      '9999-12-31T23:59:59.999Z',
    ]);
  });

  it(`caps a monitor at SERVICE_MONITOR_MAX_SAMPLES (${CAP}): the batch that would pass it is 413 monitor_sample_limit, nothing of it stored`, async () => {
    const runId = await heldRun(world);
    const m = await openMonitor(world, runId);
    const other = await openMonitor(world, runId, 'other');
    expect(await json(await postSamples(world, samplesOf(m.id, 1, 15)))).toEqual({ accepted: 15, duplicates: 0 });
    const over = await postSamples(world, [...samplesOf(other.id, 1, 1), ...samplesOf(m.id, 16, 6)]);
    expect(await problemOf(over)).toMatchObject({ status: 413, code: 'monitor_sample_limit' });
    expect(await getMonitor(m.id)).toMatchObject({ sample_count: 15 });
    expect(await storedSeqs(world, other.id)).toEqual([]);
    expect(await json(await postSamples(world, samplesOf(m.id, 16, 5)))).toEqual({ accepted: 5, duplicates: 0 });
    // At the cap, a retry of stored samples is still answered; one more is not.
    expect(await json(await postSamples(world, samplesOf(m.id, 18, 3)))).toEqual({ accepted: 0, duplicates: 3 });
    expect(await problemOf(await postSamples(world, samplesOf(m.id, 21, 1)))).toMatchObject({ status: 413, code: 'monitor_sample_limit' });
    expect(await storedSeqs(world, m.id)).toHaveLength(CAP);
  });
});

describe('POST /api/v1/monitors/finalize-for-run/{run_id}', () => {
  it('closes every open monitor of the run; samples and changes after it answer 409 monitor_closed', async () => {
    const runId = await heldRun(world);
    const a = await openMonitor(world, runId, 'a');
    const b = await openMonitor(world, runId, 'b');
    const done = await openMonitor(world, runId, 'done');
    await callback(world, 'PATCH', `/api/v1/monitors/${done.id}`, { body: { status: 'closed' } });
    await postSamples(world, samplesOf(a.id, 1, 2));
    const answer = await json<{ closed: string[] }>(await callback(world, 'POST', `/api/v1/monitors/finalize-for-run/${runId}`));
    expect(answer.closed).toEqual([a.id, b.id].sort());
    expect(await json(await callback(world, 'POST', `/api/v1/monitors/finalize-for-run/${runId}`))).toEqual({ closed: [] });
    expect(await problemOf(await postSamples(world, samplesOf(a.id, 3, 1)))).toMatchObject({ status: 409, code: 'monitor_closed' });
    expect(await problemOf(await postSamples(world, samplesOf(a.id, 1, 1)))).toMatchObject({ status: 409, code: 'monitor_closed' });
    const patch = await callback(world, 'PATCH', `/api/v1/monitors/${b.id}`, { body: { summary: { n: 1 } } });
    expect(await problemOf(patch)).toMatchObject({ status: 409, code: 'monitor_closed' });
    expect(await storedSeqs(world, a.id)).toEqual([1, 2]);
    expect(await getMonitor(a.id)).toMatchObject({ status: 'closed', sample_count: 2 });
  });

  it('refuses another worker (409), an unknown or malformed run (404), and closes nothing', async () => {
    const runId = await heldRun(world);
    const m = await openMonitor(world, runId);
    const path = `/api/v1/monitors/finalize-for-run/${runId}`;
    expect(await problemOf(await callback(world, 'POST', path, { worker: 'w2' }))).toMatchObject({ status: 409, code: 'run_not_held' });
    expect(await problemOf(await callback(world, 'POST', `/api/v1/monitors/finalize-for-run/${UNKNOWN_ID}`))).toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await problemOf(await callback(world, 'POST', '/api/v1/monitors/finalize-for-run/nope'))).toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
    expect((await getMonitor(m.id)).status).toBe('open');
  });

  it("a user's cancel of the run closes its open monitors too", async () => {
    const runId = await heldRun(world);
    const m = await openMonitor(world, runId);
    const cancelled = await fetch(`${world.daemon.url}/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { authorization: world.operator, 'x-org-id': 'acme' },
    });
    expect(cancelled.status).toBe(200);
    expect(await getMonitor(m.id)).toMatchObject({ status: 'closed' });
  });

  it('a run that ends closes its open monitors; its worker no longer holds it, so samples answer 409', async () => {
    const runId = await heldRun(world);
    const m = await openMonitor(world, runId);
    await json(await callback(world, 'PATCH', `/internal/runs/${runId}`, { body: { status: 'succeeded' } }));
    expect(await getMonitor(m.id)).toMatchObject({ status: 'closed' });
    expect(await problemOf(await postSamples(world, samplesOf(m.id, 1, 1)))).toMatchObject({ status: 409, code: 'run_not_held' });
  });
});
