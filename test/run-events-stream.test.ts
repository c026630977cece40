import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RUN_EVENTS_CHANNEL } from '../src/daemon/db/channels.js';
import { DEV_PRINCIPAL } from '../src/shared/auth/principal.js';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
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
import { UNKNOWN_ID } from './helpers/runs-fixtures.js';
import { seedUser } from './helpers/seed.js';
import { SseClient } from './helpers/sse-client.js';

let idp: DevIdp;
let daemon: TestDaemon;
let world: EventsWorld;
const knex = () => daemon.services.db.knex;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({
    SERVICE_IDP_ISSUER: idp.issuer,
    SERVICE_ORG_AUTO_JOIN: 'false',
    SERVICE_STREAM_KEEPALIVE_SECONDS: '1',
    SERVICE_STREAM_POLL_SECONDS: '1',
  });
  world = await seedEventsWorld(knex(), idp);
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

/** Opens the stream with a fresh ticket of the viewer of acme, as a browser would. */
async function watch(runId: string, query: Record<string, string | number> = {}, headers: Record<string, string> = {}) {
  const ticket = await newTicket(daemon.url, world.as.vic);
  const opened = await SseClient.open(streamUrl(daemon.url, runId, { ticket, org: 'acme', ...query }), headers);
  expect(opened.status).toBe(200);
  return opened.client!;
}

const codeOf = (body: string) => (JSON.parse(body) as { code: string }).code;
const seqsOf = (client: SseClient) => client.events.map((e) => e.seq);

describe('the live event stream of a run', () => {
  it('replays from 0, goes live, then ends with the terminal status and closes: no gap, no duplicate', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    await appendLogs(knex(), runId, 3);
    const client = await watch(runId);
    expect(client.headers['content-type']).toBe('text/event-stream');
    expect(client.headers['cache-control']).toBe('no-cache');
    expect(client.headers['x-accel-buffering']).toBe('no');
    await client.until(() => client.events.length === 3);
    expect(client.retry).toBe(3000);

    await appendLogs(knex(), runId, 2);
    await client.until(() => client.events.length === 5);
    await finishRun(knex(), runId, 'succeeded');
    const ended = await client.ended;
    expect(ended.clean).toBe(true);
    const last = client.frames.at(-1)!;
    expect(last.event).toBe('end');
    expect(JSON.parse(last.data)).toEqual({ status: 'succeeded' });
    expect(seqsOf(client)).toEqual(await recordedSeqs(knex(), runId));
    expect(client.events.at(-1)).toMatchObject({ type: 'run.status', data: { to: 'succeeded' } });
  });

  it('resumes after Last-Event-ID, and after the last_event_id query parameter (a new ticket, the same position)', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    await appendLogs(knex(), runId, 6);
    const all = await recordedSeqs(knex(), runId);

    const first = await watch(runId);
    await first.until(() => first.events.length >= 2);
    first.close();
    const position = first.events[1]!.seq;

    const byHeader = await watch(runId, {}, { 'last-event-id': String(position) });
    const byQuery = await watch(runId, { last_event_id: position });
    // With both, the larger counts: they both say what the client has seen.
    const both = await watch(runId, { last_event_id: all[0]! }, { 'last-event-id': String(all[3]) });
    const last = await finishRun(knex(), runId, 'cancelled');
    for (const client of [byHeader, byQuery, both]) await client.ended;
    expect(seqsOf(byHeader)).toEqual([...all.slice(2), last]);
    expect(seqsOf(byQuery)).toEqual([...all.slice(2), last]);
    expect(seqsOf(both)).toEqual([...all.slice(4), last]);
    expect(JSON.parse(byQuery.frames.at(-1)!.data)).toEqual({ status: 'cancelled' });
  });

  it('ends at once for a finished run the client has seen to its end', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    await appendLogs(knex(), runId, 2);
    const last = await finishRun(knex(), runId, 'failed');
    const client = await watch(runId, { last_event_id: last });
    await client.ended;
    expect(client.frames).toEqual([{ id: undefined, event: 'end', data: '{"status":"failed"}' }]);
  });

  it('refuses a malformed Last-Event-ID with 422 naming the header', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    const ticket = await newTicket(daemon.url, world.as.vic);
    const opened = await SseClient.open(streamUrl(daemon.url, runId, { ticket, org: 'acme' }), { 'last-event-id': 'abc' });
    expect(opened.status).toBe(422);
    expect(JSON.parse(opened.body)).toMatchObject({ code: 'validation_failed', errors: [{ path: 'headers.last-event-id' }] });
  });

  it('sends a keepalive comment on a quiet stream', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    const client = await watch(runId);
    await client.until(() => client.comments.includes('keepalive'));
    client.close();
  });

  it('covers a lost notification by the poll: an event row written without NOTIFY arrives', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    const client = await watch(runId);
    await client.until(() => daemon.streams.subscriberCount(runId) === 1);
    await knex().transaction(async (trx) => {
      const [row] = (await trx('runs').where({ id: runId }).increment('event_seq', 1).returning('event_seq')) as { event_seq: string }[];
      await trx('run_events').insert({ run_id: runId, seq: Number(row!.event_seq), type: 'log', data: JSON.stringify({ silent: true }) });
    });
    await client.until(() => client.events.length === 1);
    expect(client.events[0]).toMatchObject({ type: 'log', data: { silent: true } });
    client.close();
  });
});

describe('notifications of a run named in capitals', () => {
  it("a control request to the run id in capitals notifies the run's streams under the id as the database writes it", async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    const payloads: string[] = [];
    let connected = false;
    const listening = daemon.services.db.listen(RUN_EVENTS_CHANNEL, (signal, payload) => {
      if (signal === 'connected') connected = true;
      else if (payload !== undefined) payloads.push(payload);
    });
    try {
      await vi.waitFor(() => expect(connected).toBe(true));
      const paused = await fetch(`${daemon.url}/runs/${runId.toUpperCase()}/pause`, {
        method: 'POST',
        headers: { authorization: world.as.opal, 'x-org-id': 'acme' },
      });
      expect(paused.status).toBe(200);
      const about = () => payloads.filter((p) => p.toLowerCase().startsWith(`${runId}:`));
      await vi.waitFor(() => expect(about().length).toBeGreaterThan(0));
      // The hub keeps a run's streams under its id in lower case: a payload in the path's capitals wakes none.
      expect(about().map((p) => p.slice(0, p.lastIndexOf(':')))).toEqual(about().map(() => runId));
    } finally {
      await listening.stop();
    }
  });
});

describe('who may open it', () => {
  it('a ticket is single use: the same URL again is 401', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    const ticket = await newTicket(daemon.url, world.as.vic);
    const url = streamUrl(daemon.url, runId, { ticket, org: 'acme' });
    const first = await SseClient.open(url);
    expect(first.status).toBe(200);
    first.client!.close();
    const again = await SseClient.open(url);
    expect(again.status).toBe(401);
    expect(codeOf(again.body)).toBe('invalid_ticket');
  });

  it('no credential is 401', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    const opened = await SseClient.open(streamUrl(daemon.url, runId, { org: 'acme' }));
    expect(opened.status).toBe(401);
    expect(codeOf(opened.body)).toBe('unauthenticated');
  });

  it('a bearer opens it too, naming the organization with X-Org-Id', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    await appendLogs(knex(), runId, 1);
    const opened = await SseClient.open(streamUrl(daemon.url, runId, {}), { authorization: world.as.vic, 'x-org-id': 'acme' });
    expect(opened.status).toBe(200);
    await opened.client!.until(() => opened.client!.events.length === 1);
    opened.client!.close();
  });

  it('another organization’s run, an unknown run, a malformed id and a non-member are 404', async () => {
    const theirs = await admitRun(daemon.url, world.as.gus, 'globex', world.flows.globex);
    for (const id of [theirs, UNKNOWN_ID, 'not-a-uuid']) {
      const opened = await SseClient.open(streamUrl(daemon.url, id, { ticket: await newTicket(daemon.url, world.as.vic), org: 'acme' }));
      expect(opened.status).toBe(404);
      expect(codeOf(opened.body)).toBe('resource_not_found');
    }
    // Naming globex does not help a member of acme only.
    const named = await SseClient.open(streamUrl(daemon.url, theirs, { ticket: await newTicket(daemon.url, world.as.vic), org: 'globex' }));
    expect(named.status).toBe(404);
    // Its own organization streams it.
    const own = await SseClient.open(streamUrl(daemon.url, theirs, { ticket: await newTicket(daemon.url, world.as.gus), org: 'globex' }));
    expect(own.status).toBe(200);
    own.client!.close();
  });

  it('a ticket obtained with a personal access token acts only in the token’s organization', async () => {
    // mia belongs to both organizations; her token is globex's.
    await seedUser(knex(), { sub: 'sub-mia', username: 'mia' }, [
      { orgSlug: 'acme', role: 'viewer' },
      { orgSlug: 'globex', role: 'viewer' },
    ]);
    const token = await daemon.services.pats.create(
      { name: 'globex-only', username: 'mia', org: 'globex', expiresAt: null },
      DEV_PRINCIPAL,
    );
    const bearer = `Bearer ${token.token}`;
    const theirs = await admitRun(daemon.url, world.as.gus, 'globex', world.flows.globex);
    const ours = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    // Without `org`, the token's organization.
    const own = await SseClient.open(streamUrl(daemon.url, theirs, { ticket: await newTicket(daemon.url, bearer) }));
    expect(own.status).toBe(200);
    own.client!.close();
    // Naming acme, where mia is a member but the token does not act: as for a non-member, 404.
    const elsewhere = await SseClient.open(streamUrl(daemon.url, ours, { ticket: await newTicket(daemon.url, bearer), org: 'acme' }));
    expect(elsewhere.status).toBe(404);
    expect(codeOf(elsewhere.body)).toBe('resource_not_found');
  });
});

describe('an override on run:view', () => {
  it('narrows the stream too: a member the events’ policy refuses is 403, and the refusal is audited', async () => {
    const root = `Bearer ${await idp.mintAccessToken({ sub: 'sub-root', username: 'root', realmRoles: ['admin'] })}`;
    const override = (method: string, body?: object) =>
      fetch(`${daemon.url}/settings/permissions/actions/override${body ? '' : '?action=run:view'}`, {
        method,
        headers: { authorization: root, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    expect((await override('PUT', { action: 'run:view', policy: 'admin' })).status).toBe(200);
    try {
      const refused = await SseClient.open(
        streamUrl(daemon.url, runId, { ticket: await newTicket(daemon.url, world.as.vic), org: 'acme' }),
      );
      expect(refused.status).toBe(403);
      expect(codeOf(refused.body)).toBe('forbidden');
      const denied = await knex()('audit_logs').where({ event_type: 'authz.denied', resource_id: 'GET /bff/runs/{run_id}/events/stream' });
      expect(denied.length).toBeGreaterThanOrEqual(1);
    } finally {
      expect((await override('DELETE')).status).toBeLessThan(300);
    }
  });
});

describe('backpressure and shutdown', () => {
  it(
    'drops a reader that stops reading while large events pile up; the stream ends and the hub forgets it',
    { timeout: 60_000 },
    async () => {
      const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
      const client = await watch(runId);
      await client.until(() => daemon.streams.subscriberCount(runId) === 1);
      client.pause();
      // 16 MB: more than the kernel's socket buffers on both sides and the stream's own bound.
      await appendLogs(knex(), runId, 32, { blob: 'x'.repeat(512 * 1024) });
      // The daemon closed it (a paused client cannot see that until it reads again).
      await client.until(() => daemon.streams.subscriberCount(runId) === 0, 20_000);
      client.resume();
      const ended = await client.ended;
      expect(ended.clean).toBe(false);
      expect(client.events.length).toBeLessThan(32);
      expect(daemon.streams.subscriberCount(runId)).toBe(0);
    },
  );

  it('the daemon’s stop ends an open stream cleanly at once', async () => {
    const other = await startTestDaemon({
      SERVICE_IDP_ISSUER: idp.issuer,
      SERVICE_ORG_AUTO_JOIN: 'false',
      SERVICE_SHUTDOWN_GRACE_SECONDS: '60',
    });
    let stopped = false;
    try {
      const otherWorld = await seedEventsWorld(other.services.db.knex, idp);
      const runId = await admitRun(other.url, otherWorld.as.opal, 'acme', otherWorld.flows.acme);
      const ticket = await newTicket(other.url, otherWorld.as.vic);
      const opened = await SseClient.open(streamUrl(other.url, runId, { ticket, org: 'acme' }));
      expect(opened.status).toBe(200);
      const client = opened.client!;
      await client.until(() => other.streams.subscriberCount(runId) === 1);
      const stop = other.close().then(() => (stopped = true));
      const ended = await client.ended;
      // The stream ended before the stop finished (it would otherwise have waited its 60 s grace).
      expect(ended.clean).toBe(true);
      expect(client.frames.some((f) => f.event === 'end')).toBe(false);
      await stop;
    } finally {
      if (!stopped) await other.close().catch(() => undefined);
    }
  });
});
