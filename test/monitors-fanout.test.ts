import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonAnswerError, InternalHttp } from '../src/worker/http-client.js';
import { HttpMonitorCallbacks } from '../src/worker/monitor-callbacks.js';
import { CALLBACK_RETRY } from '../src/worker/retry.js';
import { BACKEND } from './helpers/backend.js';
import { callback, heldRun, INTERNAL_TOKEN, json, startCallbacksWorld, type CallbacksWorld } from './helpers/callbacks-fixtures.js';
import { startTestDaemonOn, type TestDaemon } from './helpers/daemon.js';
import { monitorStreamUrl, samplesOf, seedMonitorReaders, type MonitorReaders } from './helpers/monitors-fixtures.js';
import { newTicket } from './helpers/run-events-fixtures.js';
import { SseClient } from './helpers/sse-client.js';

/**
 * Two instances of one deployment on one PostgreSQL database (PostgreSQL only, as the event streams'
 * fan-out): a worker records a monitor through daemon A with its own HTTP client, and a user watching
 * the run's monitor stream on daemon B sees every sample live, by B's LISTEN (its poll is a minute
 * apart), resumes by position, and sees the stream end with the run.
 */
describe.skipIf(BACKEND !== 'postgres')('monitor samples across daemons', () => {
  let a: CallbacksWorld;
  let b: TestDaemon;
  let as: MonitorReaders;

  beforeAll(async () => {
    const env = { SERVICE_STREAM_POLL_SECONDS: '60', SERVICE_SECRETS_ENCRYPTION_KEY: 'cd'.repeat(32) };
    a = await startCallbacksWorld(env);
    b = await startTestDaemonOn(a.daemon.location, { ...env, SERVICE_IDP_ISSUER: a.idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
    as = await seedMonitorReaders(a);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  async function watchOnB(runId: string, query: Record<string, string | number> = {}): Promise<SseClient> {
    const ticket = await newTicket(a.daemon.url, as.vic);
    const opened = await SseClient.open(monitorStreamUrl(b.url, runId, { ticket, org: 'acme', ...query }));
    expect(opened.status).toBe(200);
    return opened.client!;
  }

  it('samples posted to A arrive on a monitor stream read from B, live, across a reconnect, to the end', async () => {
    const runId = await heldRun(a);
    const worker = new HttpMonitorCallbacks(new InternalHttp(a.daemon.url, INTERNAL_TOKEN, CALLBACK_RETRY), runId, 'w1', 1);
    const ping = await worker.open({ monitor_key: 'ping', kind: 'connectivity.icmp_ping', target: '10.0.0.1', unit: 'ms' });
    const first = await watchOnB(runId);
    await first.until(() => b.monitorStreams.subscriberCount(runId) === 1);

    expect(await worker.postSamples(samplesOf(ping.id, 1, 3))).toEqual({ accepted: 3, duplicates: 0 });
    await first.until(() => first.events.length === 3);
    // A retried batch adds nothing to the stream.
    expect(await worker.postSamples(samplesOf(ping.id, 1, 3))).toEqual({ accepted: 0, duplicates: 3 });
    first.close();
    const position = first.events.at(-1)!.seq;

    // While nobody watches, more arrives; the client comes back on B with a new ticket and its position.
    await worker.postSamples(samplesOf(ping.id, 4, 2));
    const second = await watchOnB(runId, { last_event_id: position });
    await second.until(() => second.events.length === 2);
    await worker.postSamples(samplesOf(ping.id, 6, 2));
    await second.until(() => second.events.length === 4);

    expect(await worker.finalize()).toEqual({ closed: [ping.id] });
    const refused = await worker.postSamples(samplesOf(ping.id, 8, 1)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DaemonAnswerError);
    expect(refused).toMatchObject({ status: 409, code: 'monitor_closed' });

    await json(await callback(a, 'PATCH', `/internal/runs/${runId}`, { body: { status: 'succeeded' } }));
    expect((await second.ended).clean).toBe(true);
    expect(second.frames.at(-1)).toMatchObject({ event: 'end', data: '{"status":"succeeded"}' });
    const seen = [...first.events, ...second.events] as unknown as { seq: number; sample_seq: number }[];
    expect(seen.map((f) => f.sample_seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(seen.map((f) => f.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('many clients of one run on B share one read per batch', async () => {
    const runId = await heldRun(a);
    const worker = new HttpMonitorCallbacks(new InternalHttp(a.daemon.url, INTERNAL_TOKEN, CALLBACK_RETRY), runId, 'w1', 1);
    const ping = await worker.open({ monitor_key: 'ping', kind: 'connectivity.tcp_connect' });
    const clients = await Promise.all(Array.from({ length: 4 }, () => watchOnB(runId)));
    await clients[0]!.until(() => b.monitorStreams.subscriberCount(runId) === 4);
    await worker.postSamples(samplesOf(ping.id, 1, 1));
    await Promise.all(clients.map((client) => client.until(() => client.events.length === 1)));
    const before = b.monitorStreams.reads;
    await worker.postSamples(samplesOf(ping.id, 2, 5));
    await Promise.all(clients.map((client) => client.until(() => client.events.length === 6)));
    expect(b.monitorStreams.reads - before).toBe(1);
    for (const client of clients) client.close();
  });
});
