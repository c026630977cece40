import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { BACKEND } from './helpers/backend.js';
import { startTestDaemon, startTestDaemonOn, type TestDaemon } from './helpers/daemon.js';
import {
  admitRun,
  appendLogs,
  finishRun,
  newTicket,
  recordedSeqs,
  seedEventsWorld,
  streamUrl,
  type EventsWorld,
} from './helpers/run-events-fixtures.js';
import { SseClient } from './helpers/sse-client.js';

/**
 * Two instances of one deployment on one PostgreSQL database (PGlite's directory has a single user, so
 * this runs on PostgreSQL only): a client streaming from B sees what is appended through A, by B's
 * LISTEN; a stream from B survives a reconnect with a new ticket and its position, with no gap and no
 * duplicate through `end`.
 */
describe.skipIf(BACKEND !== 'postgres')('live streams across daemons', () => {
  let idp: DevIdp;
  let a: TestDaemon;
  let b: TestDaemon;
  let world: EventsWorld;

  beforeAll(async () => {
    idp = await startDevIdp();
    // Polls far apart: what B sees within the test comes by its notification, not its poll. One secrets
    // key for both, as instances of one deployment share it.
    const env = {
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
      SERVICE_STREAM_POLL_SECONDS: '60',
      SERVICE_SECRETS_ENCRYPTION_KEY: 'ab'.repeat(32),
    };
    a = await startTestDaemon(env);
    b = await startTestDaemonOn(a.location, env);
    world = await seedEventsWorld(a.services.db.knex, idp);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await idp?.stop();
  });

  async function watchOnB(runId: string, query: Record<string, string | number> = {}): Promise<SseClient> {
    const ticket = await newTicket(a.url, world.as.vic);
    const opened = await SseClient.open(streamUrl(b.url, runId, { ticket, org: 'acme', ...query }));
    expect(opened.status).toBe(200);
    return opened.client!;
  }

  it('a client on B sees events appended through A, live, then reconnects by position and reads to the end', async () => {
    const runId = await admitRun(a.url, world.as.opal, 'acme', world.flows.acme);
    const first = await watchOnB(runId);
    await first.until(() => b.streams.subscriberCount(runId) === 1);
    await appendLogs(a.services.db.knex, runId, 3);
    await first.until(() => first.events.length === 3);
    first.close();
    const position = first.events.at(-1)!.seq;

    // While nobody watches, more arrives; the client comes back with a new ticket (the old one is spent).
    await appendLogs(a.services.db.knex, runId, 2);
    const second = await watchOnB(runId, { last_event_id: position });
    await second.until(() => second.events.length === 2);
    await appendLogs(a.services.db.knex, runId, 2);
    await finishRun(a.services.db.knex, runId, 'succeeded');
    expect((await second.ended).clean).toBe(true);
    expect(second.frames.at(-1)).toMatchObject({ event: 'end', data: '{"status":"succeeded"}' });
    expect([...first.events, ...second.events].map((e) => e.seq)).toEqual(await recordedSeqs(a.services.db.knex, runId));
  });

  it('many clients of one run on B share one read per notification and all see the same events', async () => {
    const runId = await admitRun(a.url, world.as.opal, 'acme', world.flows.acme);
    const clients = await Promise.all(Array.from({ length: 5 }, () => watchOnB(runId)));
    await clients[0]!.until(() => b.streams.subscriberCount(runId) === 5);
    await appendLogs(a.services.db.knex, runId, 1);
    await Promise.all(clients.map((client) => client.until(() => client.events.length === 1)));
    // One event, five streams: one read (the joins' own reads are done: each got the event once).
    const before = b.streams.reads;
    await appendLogs(a.services.db.knex, runId, 1);
    await Promise.all(clients.map((client) => client.until(() => client.events.length === 2)));
    expect(b.streams.reads - before).toBe(1);
    await appendLogs(a.services.db.knex, runId, 2);
    await finishRun(a.services.db.knex, runId, 'failed');
    const recorded = await recordedSeqs(a.services.db.knex, runId);
    for (const client of clients) {
      await client.ended;
      expect(client.events.map((e) => e.seq)).toEqual(recorded);
    }
  });

  it('re-reads every subscribed run when its listener reconnects: an event whose notification was lost arrives', async () => {
    const knex = a.services.db.knex;
    const runId = await admitRun(a.url, world.as.opal, 'acme', world.flows.acme);
    const client = await watchOnB(runId);
    await client.until(() => b.streams.subscriberCount(runId) === 1);
    // An event with no NOTIFY (its notification lost), then the daemons' listening sessions cut (one each,
    // for every channel): only the re-read on reconnect can bring it (the poll is a minute apart).
    await knex.transaction(async (trx) => {
      const [row] = (await trx('runs').where({ id: runId }).increment('event_seq', 1).returning('event_seq')) as { event_seq: string }[];
      await trx('run_events').insert({ run_id: runId, seq: Number(row!.event_seq), type: 'log', data: JSON.stringify({ lost: true }) });
    });
    const killed = await knex.raw(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'svcd-listener' AND datname = current_database()`,
    );
    expect(killed.rows.length).toBe(2);
    await client.until(() => client.events.length === 1, 15_000);
    expect(client.events[0]).toMatchObject({ type: 'log', data: { lost: true } });
    client.close();
  });
});
