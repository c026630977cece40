import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { admitRun, appendLogs, finishRun, recordedSeqs, seedEventsWorld, type EventsWorld } from './helpers/run-events-fixtures.js';
import { UNKNOWN_ID } from './helpers/runs-fixtures.js';

interface Page {
  items: { seq: number; ts: string; type: string; step_id: string | null; attempt: number; data: Record<string, unknown> }[];
  next_after: number | null;
  run_status: string;
}

let idp: DevIdp;
let daemon: TestDaemon;
let world: EventsWorld;
const knex = () => daemon.services.db.knex;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
  world = await seedEventsWorld(knex(), idp);
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

async function page(runId: string, query: string, who: 'vic' | 'gus' = 'vic', org = 'acme'): Promise<Response> {
  return fetch(`${daemon.url}/runs/${runId}/events${query}`, { headers: { authorization: world.as[who], 'x-org-id': org } });
}

describe('GET /runs/{run_id}/events', () => {
  it('pages a run’s events oldest first by sequence; next_after is null once the page reached the last event', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    await appendLogs(knex(), runId, 5);
    const all = await recordedSeqs(knex(), runId);

    const first = await page(runId, '?limit=2');
    expect(first.status).toBe(200);
    const one = (await first.json()) as Page;
    expect(one.items.map((e) => e.seq)).toEqual(all.slice(0, 2));
    expect(one.next_after).toBe(all[1]);
    expect(one.run_status).toBe('queued');
    expect(one.items[0]).toMatchObject({ type: 'log', step_id: null, data: { level: 'info', message: 'line 0' } });

    const rest = (await (await page(runId, `?after=${one.next_after}&limit=10`)).json()) as Page;
    expect(rest.items.map((e) => e.seq)).toEqual(all.slice(2));
    expect(rest.next_after).toBeNull();

    // A page that ends exactly at the last event says so too.
    const exact = (await (await page(runId, `?after=${all[1]}&limit=${all.length - 2}`)).json()) as Page;
    expect(exact.next_after).toBeNull();
  });

  it('answers the run’s status with its events, and an empty page past the end', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    await appendLogs(knex(), runId, 2);
    const last = await finishRun(knex(), runId, 'failed');
    const body = (await (await page(runId, '')).json()) as Page;
    expect(body.run_status).toBe('failed');
    expect(body.items.at(-1)).toMatchObject({ seq: last, type: 'run.status', data: { to: 'failed' } });
    const past = (await (await page(runId, `?after=${last}`)).json()) as Page;
    expect(past).toEqual({ items: [], next_after: null, run_status: 'failed' });
  });

  it('is 404 for an unknown run, a malformed id and another organization’s run', async () => {
    const theirs = await admitRun(daemon.url, world.as.gus, 'globex', world.flows.globex);
    for (const id of [UNKNOWN_ID, 'not-a-uuid', theirs]) {
      const response = await page(id, '');
      expect(response.status).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('resource_not_found');
    }
    // Its own organization reads it.
    expect((await page(theirs, '', 'gus', 'globex')).status).toBe(200);
  });

  it('refuses a bad query with the parameter’s path', async () => {
    const runId = await admitRun(daemon.url, world.as.opal, 'acme', world.flows.acme);
    for (const query of ['?limit=0', '?limit=1001', '?after=-1', '?nope=1']) {
      const response = await page(runId, query);
      expect(response.status).toBe(422);
      expect(((await response.json()) as { code: string }).code).toBe('validation_failed');
    }
  });
});
