import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitRun, callback, heldRun, json, startCallbacksWorld, type CallbacksWorld } from './helpers/callbacks-fixtures.js';
import {
  monitorStreamUrl,
  openMonitor,
  postSamples,
  samplesOf,
  seedMonitorReaders,
  type MonitorReaders,
} from './helpers/monitors-fixtures.js';
import { newTicket } from './helpers/run-events-fixtures.js';
import { UNKNOWN_ID } from './helpers/runs-fixtures.js';
import { SseClient } from './helpers/sse-client.js';

let world: CallbacksWorld;
let as: MonitorReaders;
const knex = () => world.knex;

beforeAll(async () => {
  world = await startCallbacksWorld({ SERVICE_STREAM_KEEPALIVE_SECONDS: '1', SERVICE_STREAM_POLL_SECONDS: '1' });
  as = await seedMonitorReaders(world);
});
afterAll(async () => {
  await world?.close();
});

/** Opens the run's monitor stream with a fresh ticket of acme's viewer. */
async function watch(runId: string, query: Record<string, string | number> = {}, headers: Record<string, string> = {}) {
  const ticket = await newTicket(world.daemon.url, as.vic);
  const opened = await SseClient.open(monitorStreamUrl(world.daemon.url, runId, { ticket, org: 'acme', ...query }), headers);
  expect(opened.status).toBe(200);
  return opened.client!;
}

interface SampleFrame {
  seq: number;
  type: string;
  monitor_id: string;
  monitor_key: string;
  sample_seq: number;
  value: number | null;
  data: Record<string, unknown>;
}

const framesOf = (client: SseClient) => client.events as unknown as SampleFrame[];
const codeOf = (body: string) => (JSON.parse(body) as { code: string }).code;

async function streamSeqs(runId: string): Promise<number[]> {
  const rows = (await knex()('monitor_samples').where({ run_id: runId }).orderBy('stream_seq').select('stream_seq')) as {
    stream_seq: string;
  }[];
  return rows.map((row) => Number(row.stream_seq));
}

const finish = async (runId: string) => json(await callback(world, 'PATCH', `/internal/runs/${runId}`, { body: { status: 'succeeded' } }));

describe("the live stream of a run's monitor samples", () => {
  it('replays, goes live with the samples of every monitor of the run, then ends with the terminal status', async () => {
    const runId = await heldRun(world);
    const ping = await openMonitor(world, runId, 'ping');
    const dns = await openMonitor(world, runId, 'dns');
    await json(await postSamples(world, samplesOf(ping.id, 1, 3)));
    const client = await watch(runId);
    expect(client.headers['content-type']).toBe('text/event-stream');
    await client.until(() => client.events.length === 3);
    expect(client.retry).toBe(3000);
    await json(await postSamples(world, [...samplesOf(dns.id, 1, 1), ...samplesOf(ping.id, 4, 1)]));
    await client.until(() => client.events.length === 5);
    await finish(runId);
    expect((await client.ended).clean).toBe(true);
    expect(client.frames.at(-1)).toMatchObject({ event: 'end', data: '{"status":"succeeded"}' });
    const frames = framesOf(client);
    expect(frames.map((f) => f.seq)).toEqual(await streamSeqs(runId));
    expect(frames.map((f) => [f.monitor_key, f.sample_seq])).toEqual([
      ['ping', 1],
      ['ping', 2],
      ['ping', 3],
      ['dns', 1],
      ['ping', 4],
    ]);
    expect(frames[0]).toMatchObject({ type: 'monitor.sample', monitor_id: ping.id, value: 10, status: 'ok', data: { rtt_ms: 1 } });
  });

  it('resumes after Last-Event-ID and after last_event_id (the larger counts), with no gap and no duplicate', async () => {
    const runId = await heldRun(world);
    const ping = await openMonitor(world, runId);
    await json(await postSamples(world, samplesOf(ping.id, 1, 6)));
    const first = await watch(runId);
    await first.until(() => first.events.length >= 2);
    first.close();
    const position = framesOf(first)[1]!.seq;
    const byHeader = await watch(runId, {}, { 'last-event-id': String(position) });
    const byQuery = await watch(runId, { last_event_id: position });
    const both = await watch(runId, { last_event_id: 1 }, { 'last-event-id': '4' });
    await json(await postSamples(world, samplesOf(ping.id, 7, 1)));
    await finish(runId);
    for (const client of [byHeader, byQuery, both]) await client.ended;
    const all = await streamSeqs(runId);
    expect(framesOf(byHeader).map((f) => f.seq)).toEqual(all.slice(2));
    expect(framesOf(byQuery).map((f) => f.seq)).toEqual(all.slice(2));
    expect(framesOf(both).map((f) => f.seq)).toEqual(all.slice(4));
  });

  it('ends at once for a finished run the client has seen to its end, and for a finished run with no samples', async () => {
    const runId = await heldRun(world);
    const ping = await openMonitor(world, runId);
    await json(await postSamples(world, samplesOf(ping.id, 1, 2)));
    await finish(runId);
    const seen = await watch(runId, { last_event_id: 2 });
    await seen.ended;
    expect(seen.frames).toEqual([{ id: undefined, event: 'end', data: '{"status":"succeeded"}' }]);
    const empty = await heldRun(world);
    await finish(empty);
    const nothing = await watch(empty);
    await nothing.ended;
    expect(nothing.frames).toEqual([{ id: undefined, event: 'end', data: '{"status":"succeeded"}' }]);
  });

  it('covers a lost notification by the poll: a sample row written without NOTIFY arrives', async () => {
    const runId = await heldRun(world);
    const ping = await openMonitor(world, runId);
    const client = await watch(runId);
    await client.until(() => world.daemon.monitorStreams.subscriberCount(runId) === 1);
    await knex().transaction(async (trx) => {
      const [row] = (await trx('runs').where({ id: runId }).increment('monitor_seq', 1).returning('monitor_seq')) as {
        monitor_seq: string;
      }[];
      await trx('monitor_samples').insert({ monitor_id: ping.id, seq: 1, run_id: runId, stream_seq: Number(row!.monitor_seq), value: 1.5 });
    });
    await client.until(() => client.events.length === 1);
    expect(framesOf(client)[0]).toMatchObject({ monitor_key: 'ping', sample_seq: 1, value: 1.5 });
    client.close();
  });

  it('a run id written in capitals is watched as the run the notifications name (its id in lower case)', async () => {
    const runId = await heldRun(world);
    const streams = world.daemon.monitorStreams;
    const client = await watch(runId.toUpperCase());
    await client.until(() => streams.subscriberCount(runId) + streams.subscriberCount(runId.toUpperCase()) === 1);
    // A batch's NOTIFY says `<run_id>:<position>` as the database writes the id: a stream kept under the path's
    // spelling hears none of them, and gets its samples (and its end) only from the poll.
    expect(streams.subscriberCount(runId)).toBe(1);
    client.close();
  });

  it('sends a keepalive comment on a quiet stream', async () => {
    const client = await watch(await heldRun(world));
    await client.until(() => client.comments.includes('keepalive'));
    client.close();
  });
});

describe('who may open it', () => {
  it('refuses a malformed Last-Event-ID (422), a spent ticket and no credential (401)', async () => {
    const runId = await heldRun(world);
    const ticket = await newTicket(world.daemon.url, as.vic);
    const url = monitorStreamUrl(world.daemon.url, runId, { ticket, org: 'acme' });
    const bad = await SseClient.open(url, { 'last-event-id': 'abc' });
    expect(bad.status).toBe(422);
    expect(codeOf(bad.body)).toBe('validation_failed');
    const first = await SseClient.open(
      monitorStreamUrl(world.daemon.url, runId, { ticket: await newTicket(world.daemon.url, as.vic), org: 'acme' }),
    );
    expect(first.status).toBe(200);
    first.client!.close();
    const spent = await SseClient.open(url);
    expect([spent.status, codeOf(spent.body)]).toEqual([401, 'invalid_ticket']);
    const none = await SseClient.open(monitorStreamUrl(world.daemon.url, runId, { org: 'acme' }));
    expect([none.status, codeOf(none.body)]).toEqual([401, 'unauthenticated']);
  });

  it('a bearer opens it too, naming the organization with X-Org-Id', async () => {
    const runId = await heldRun(world);
    const ping = await openMonitor(world, runId);
    await json(await postSamples(world, samplesOf(ping.id, 1, 1)));
    const opened = await SseClient.open(monitorStreamUrl(world.daemon.url, runId, {}), { authorization: as.vic, 'x-org-id': 'acme' });
    expect(opened.status).toBe(200);
    await opened.client!.until(() => opened.client!.events.length === 1);
    opened.client!.close();
  });

  it("another organization's run, an unknown run and a malformed id are 404; its own organization streams it", async () => {
    const globexRun = await adminRunOfGlobex();
    for (const id of [globexRun, UNKNOWN_ID, 'not-a-uuid']) {
      const opened = await SseClient.open(
        monitorStreamUrl(world.daemon.url, id, { ticket: await newTicket(world.daemon.url, as.vic), org: 'acme' }),
      );
      expect([opened.status, codeOf(opened.body)]).toEqual([404, 'resource_not_found']);
    }
    const own = await SseClient.open(
      monitorStreamUrl(world.daemon.url, globexRun, { ticket: await newTicket(world.daemon.url, as.gus), org: 'globex' }),
    );
    expect(own.status).toBe(200);
    own.client!.close();
  });
});

/** A run of globex, admitted by its admin. */
async function adminRunOfGlobex(): Promise<string> {
  const response = await fetch(`${world.daemon.url}/runs`, {
    method: 'POST',
    headers: { authorization: as.gus, 'x-org-id': 'globex', 'content-type': 'application/json' },
    body: JSON.stringify({ flow_id: as.globexFlow }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe('shutdown', () => {
  it('the daemon’s stop ends an open monitor stream cleanly at once', async () => {
    const other = await startCallbacksWorld({ SERVICE_SHUTDOWN_GRACE_SECONDS: '60' });
    let stopped = false;
    try {
      const readers = await seedMonitorReaders(other);
      const runId = (await admitRun(other)).id;
      const ticket = await newTicket(other.daemon.url, readers.vic);
      const opened = await SseClient.open(monitorStreamUrl(other.daemon.url, runId, { ticket, org: 'acme' }));
      expect(opened.status).toBe(200);
      const client = opened.client!;
      await client.until(() => other.daemon.monitorStreams.subscriberCount(runId) === 1);
      const stop = other.close().then(() => (stopped = true));
      const ended = await client.ended;
      expect(ended.clean).toBe(true);
      expect(client.frames.some((f) => f.event === 'end')).toBe(false);
      await stop;
    } finally {
      if (!stopped) await other.close().catch(() => undefined);
    }
  });
});
