import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admitRun,
  callback,
  heldRun,
  holdRun,
  json,
  problemOf,
  startCallbacksWorld,
  type CallbacksWorld,
} from './helpers/callbacks-fixtures.js';
import {
  openMonitor,
  postSamples,
  samplesOf,
  seedMonitorReaders,
  userGet,
  type MonitorAnswer,
  type MonitorReaders,
} from './helpers/monitors-fixtures.js';
import { UNKNOWN_ID } from './helpers/runs-fixtures.js';

let world: CallbacksWorld;
let as: MonitorReaders;
const knex = () => world.knex;

beforeAll(async () => {
  world = await startCallbacksWorld();
  as = await seedMonitorReaders(world);
});
afterAll(async () => {
  await world?.close();
});

interface Page {
  items: { seq: number; ts: string; value: number | null; status: string | null; data: Record<string, unknown> }[];
  next_after: number | null;
}

const START = Date.parse('2026-11-26T10:00:00.000Z');
const at = (seconds: number) => new Date(START + seconds * 1000).toISOString();

/** A held run with a monitor of 12 samples (seq n taken at START + n s) and a second, empty one. */
async function runWithSamples(): Promise<{ runId: string; ping: MonitorAnswer; idle: MonitorAnswer }> {
  const runId = await heldRun(world);
  const ping = await openMonitor(world, runId, 'ping');
  const idle = await openMonitor(world, runId, 'idle');
  await json(await postSamples(world, samplesOf(ping.id, 1, 12, START)));
  return { runId, ping, idle };
}

const page = async (runId: string, monitorId: string, query: string) =>
  json<Page>(await userGet(world, as.vic, `/runs/${runId}/monitors/${monitorId}/samples${query}`));

describe("a run's monitors as users read them", () => {
  it('lists them oldest first and reads one, for a viewer of the run organization', async () => {
    const { runId, ping, idle } = await runWithSamples();
    const list = await json<{ items: MonitorAnswer[] }>(await userGet(world, as.vic, `/runs/${runId}/monitors`));
    expect(list.items.map((m) => m.id)).toEqual([ping.id, idle.id]);
    expect(list.items[0]).toMatchObject({ sample_count: 12, last_seq: 12, last_sample: { seq: 12, value: 120 } });
    const one = await json<MonitorAnswer>(await userGet(world, as.vic, `/runs/${runId}/monitors/${ping.id}`));
    expect(one).toEqual(list.items[0]);
    const none = await json<{ items: unknown[] }>(await userGet(world, as.vic, `/runs/${(await admitRun(world)).id}/monitors`));
    expect(none.items).toEqual([]);
  });

  it('pages samples by seq: after, limit, next_after until null', async () => {
    const { runId, ping } = await runWithSamples();
    const first = await page(runId, ping.id, '?limit=5');
    expect(first.items.map((s) => s.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(first.items[0]).toEqual({ seq: 1, ts: at(1), value: 10, status: 'ok', data: { rtt_ms: 1 } });
    expect(first.next_after).toBe(5);
    const second = await page(runId, ping.id, '?limit=5&after=5');
    expect(second.items.map((s) => s.seq)).toEqual([6, 7, 8, 9, 10]);
    const last = await page(runId, ping.id, `?limit=5&after=${second.next_after}`);
    expect(last.items.map((s) => s.seq)).toEqual([11, 12]);
    expect(last.next_after).toBeNull();
    // A page that ends exactly at the last sample says no more follows.
    expect((await page(runId, ping.id, '?limit=12')).next_after).toBeNull();
    expect((await page(runId, ping.id, '?after=12')).items).toEqual([]);
  });

  it('reads a time window on ts, from inclusive and to exclusive, paged within it', async () => {
    const { runId, ping } = await runWithSamples();
    const window = `from=${encodeURIComponent(at(3))}&to=${encodeURIComponent(at(9))}`;
    expect((await page(runId, ping.id, `?${window}`)).items.map((s) => s.seq)).toEqual([3, 4, 5, 6, 7, 8]);
    const head = await page(runId, ping.id, `?${window}&limit=4`);
    expect(head.items.map((s) => s.seq)).toEqual([3, 4, 5, 6]);
    const tail = await page(runId, ping.id, `?${window}&limit=4&after=${head.next_after}`);
    expect(tail.items.map((s) => s.seq)).toEqual([7, 8]);
    expect(tail.next_after).toBeNull();
    expect((await page(runId, ping.id, `?from=${encodeURIComponent(at(11))}`)).items.map((s) => s.seq)).toEqual([11, 12]);
    expect((await page(runId, ping.id, `?to=${encodeURIComponent(at(2))}`)).items.map((s) => s.seq)).toEqual([1]);
  });

  it('refuses a bad query with 422: an inverted window, a malformed time, a limit out of range, an unknown parameter', async () => {
    const { runId, ping } = await runWithSamples();
    const path = `/runs/${runId}/monitors/${ping.id}/samples`;
    for (const query of [
      `?from=${encodeURIComponent(at(9))}&to=${encodeURIComponent(at(3))}`,
      '?from=yesterday',
      '?limit=0',
      '?limit=5001',
      '?after=-1',
      '?page=2',
      // Well-formed, but no time PostgreSQL takes (year 0, an offset past 15:59) or any sample has.
      '?from=0000-01-01T00:00:00Z',
      `?to=${encodeURIComponent('2026-01-01T00:00:00+16:00')}`,
      '?from=1900-01-01T00:00:00Z',
    ]) {
      expect(await problemOf(await userGet(world, as.vic, path + query)), query).toMatchObject({ status: 422, code: 'validation_failed' });
    }
  });

  it("another organization's run, an unknown run or monitor, and a monitor of another run are 404", async () => {
    const { runId, ping } = await runWithSamples();
    const other = await runWithSamples();
    for (const path of [
      `/runs/${UNKNOWN_ID}/monitors`,
      '/runs/nope/monitors',
      `/runs/${runId}/monitors/${UNKNOWN_ID}`,
      `/runs/${runId}/monitors/nope`,
      `/runs/${runId}/monitors/${other.ping.id}`,
      `/runs/${runId}/monitors/${other.ping.id}/samples`,
    ]) {
      expect(await problemOf(await userGet(world, as.vic, path)), path).toMatchObject({ status: 404, code: 'resource_not_found' });
    }
    // gus administers globex: acme's run is not there, named or not.
    for (const path of [`/runs/${runId}/monitors`, `/runs/${runId}/monitors/${ping.id}`, `/runs/${runId}/monitors/${ping.id}/samples`]) {
      expect(await problemOf(await userGet(world, as.gus, path, 'globex')), path).toMatchObject({
        status: 404,
        code: 'resource_not_found',
      });
    }
  });

  it('a soft-deleted run hides its monitors (404); a purged one takes its monitors and samples with it', async () => {
    const { runId, ping, idle } = await runWithSamples();
    await json(await callback(world, 'PATCH', `/internal/runs/${runId}`, { body: { status: 'succeeded' } }));
    const control = (method: string, path: string) =>
      fetch(`${world.daemon.url}${path}`, { method, headers: { authorization: as.ada, 'x-org-id': 'acme' } });
    expect((await control('DELETE', `/runs/${runId}`)).status).toBe(204);
    expect(await problemOf(await userGet(world, as.vic, `/runs/${runId}/monitors`))).toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
    expect(Number((await knex()('monitor_samples').where({ monitor_id: ping.id }).count({ n: '*' }))[0]!.n)).toBe(12);

    expect((await control('DELETE', `/runs/${runId}/permanent`)).status).toBe(204);
    expect(await knex()('monitors').whereIn('id', [ping.id, idle.id])).toEqual([]);
    expect(await knex()('monitor_samples').where({ monitor_id: ping.id })).toEqual([]);
    expect(await knex()('monitor_samples').where({ run_id: runId })).toEqual([]);
  });

  it('needs the run:view policy: no credential is 401', async () => {
    const { runId } = await runWithSamples();
    expect((await fetch(`${world.daemon.url}/runs/${runId}/monitors`, { headers: { 'x-org-id': 'acme' } })).status).toBe(401);
  });
});

describe('holding across attempts', () => {
  it('a worker of an older attempt is refused once the run is claimed again; the new holder writes to the same monitor', async () => {
    const runId = await heldRun(world);
    const m = await openMonitor(world, runId);
    await json(await postSamples(world, samplesOf(m.id, 1, 2)));
    await holdRun(knex(), runId, 'w2', 2);
    expect(await problemOf(await postSamples(world, samplesOf(m.id, 3, 1)))).toMatchObject({ status: 409, code: 'run_not_held' });
    expect(await json(await postSamples(world, samplesOf(m.id, 3, 1), { worker: 'w2', attempt: 2 }))).toEqual({
      accepted: 1,
      duplicates: 0,
    });
    const again = await callback(world, 'POST', '/api/v1/monitors', {
      body: { run_id: runId, monitor_key: 'ping', kind: 'connectivity.tcp_connect' },
      worker: 'w2',
      attempt: 2,
    });
    expect((await json<MonitorAnswer>(again, 200)).sample_count).toBe(3);
  });
});
