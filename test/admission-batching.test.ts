import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRow } from '../src/daemon/audit/audit-repo.js';
import { Coalescer, type Settled } from '../src/daemon/db/coalescer.js';
import { AdmissionRepo, type NewRun } from '../src/daemon/domains/runs/admission-repo.js';
import { POSTGRES_ADMIN_URL } from './helpers/backend.js';
import {
  admissionsPerStatement,
  BARE,
  call,
  createEndpoint,
  createSecret,
  fire,
  queriesDuring,
  seedDevice,
  seedFlow,
  startWorld,
  TARGETED,
  UNKNOWN_ID,
  type Answer,
  type World,
} from './helpers/webhooks-fixtures.js';

/**
 * Run admissions that arrive while another admission's statement is in flight share the next statement
 * (group commit): one round trip and one commit for many runs. Each caller still gets its own outcome, and
 * a statement that fails as a whole is retried one admission at a time.
 */
const KEY = 'batching-signing-key';
const CONCURRENT = 24;

interface Deferred {
  readonly items: readonly number[];
  finish(settled?: Settled<string>[]): void;
  fail(error: unknown): void;
}

/** A coalescer whose flushes wait until the test finishes them. */
function controlled(
  maxBatch = 32,
  parallel: { inFlight: number; minBatchWhileBusy: number; failsWaiting?: (error: unknown) => boolean } = {
    inFlight: 1,
    minBatchWhileBusy: 1,
  },
): { coalescer: Coalescer<number, string>; flushes: Deferred[] } {
  const flushes: Deferred[] = [];
  const coalescer = new Coalescer<number, string>(
    (items) =>
      new Promise((resolve, reject) => {
        flushes.push({
          items,
          finish: (settled) => resolve(settled ?? items.map((i) => ({ ok: true, value: `done ${i}` }))),
          fail: reject,
        });
      }),
    { maxBatch, ...parallel },
  );
  return { coalescer, flushes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Coalescer', () => {
  it('flushes a lone item at once', async () => {
    const { coalescer, flushes } = controlled();
    const answer = coalescer.submit(1);
    expect(flushes.map((f) => f.items)).toEqual([[1]]);
    flushes[0]!.finish();
    expect(await answer).toBe('done 1');
  });

  it('starts a second flush beside a running one only once minBatchWhileBusy items wait', async () => {
    const { coalescer, flushes } = controlled(32, { inFlight: 2, minBatchWhileBusy: 3 });
    const answers = [coalescer.submit(1), coalescer.submit(2), coalescer.submit(3)];
    expect(flushes.map((f) => f.items)).toEqual([[1]]);
    expect(coalescer.load).toEqual({ flushing: 1, waiting: 2 });
    answers.push(coalescer.submit(4));
    expect(flushes.map((f) => f.items)).toEqual([[1], [2, 3, 4]]);
    // Both slots busy: what arrives waits, whatever its number.
    answers.push(...[5, 6, 7].map((i) => coalescer.submit(i)));
    expect(coalescer.load).toEqual({ flushing: 2, waiting: 3 });
    flushes[1]!.finish();
    await tick();
    expect(flushes.map((f) => f.items)).toEqual([[1], [2, 3, 4], [5, 6, 7]]);
    answers.push(coalescer.submit(8));
    // One in flight, one waiting: it waits for a flush to finish rather than go alone beside it.
    expect(coalescer.load).toEqual({ flushing: 2, waiting: 1 });
    flushes[0]!.finish();
    flushes[2]!.finish();
    await tick();
    expect(flushes.map((f) => f.items)).toEqual([[1], [2, 3, 4], [5, 6, 7], [8]]);
    flushes[3]!.finish();
    expect(await Promise.all(answers)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `done ${i}`));
  });

  it('gathers what arrives while a flush is in flight into the next one, at most maxBatch each', async () => {
    const { coalescer, flushes } = controlled(2);
    const answers = [1, 2, 3, 4].map((i) => coalescer.submit(i));
    expect(flushes.map((f) => f.items)).toEqual([[1]]);
    expect(coalescer.load).toEqual({ flushing: 1, waiting: 3 });
    flushes[0]!.finish();
    await tick();
    expect(flushes.map((f) => f.items)).toEqual([[1], [2, 3]]);
    flushes[1]!.finish();
    await tick();
    expect(flushes.map((f) => f.items)).toEqual([[1], [2, 3], [4]]);
    flushes[2]!.finish();
    expect(await Promise.all(answers)).toEqual(['done 1', 'done 2', 'done 3', 'done 4']);
    expect(coalescer.load).toEqual({ flushing: 0, waiting: 0 });
  });

  it('gives each item its own outcome, fails every item of a failed flush, and goes on', async () => {
    const { coalescer, flushes } = controlled();
    const first = coalescer.submit(1);
    const second = coalescer.submit(2);
    const third = coalescer.submit(3);
    flushes[0]!.fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await tick();
    flushes[1]!.finish([
      { ok: true, value: 'two' },
      { ok: false, error: new Error('three refused') },
    ]);
    expect(await second).toBe('two');
    await expect(third).rejects.toThrow('three refused');
  });

  it('fails the items waiting when a flush meets an error the next flush would meet again (failsWaiting)', async () => {
    const unreachable = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const { coalescer, flushes } = controlled(32, { inFlight: 1, minBatchWhileBusy: 1, failsWaiting: (error) => error === unreachable });
    const answers = [1, 2, 3].map((i) => coalescer.submit(i));
    flushes[0]!.finish([{ ok: false, error: unreachable }]);
    for (const answer of answers) await expect(answer).rejects.toBe(unreachable);
    expect(flushes).toHaveLength(1);
    // Another error fails its own items alone; what waits is flushed.
    const [fourth, fifth] = [coalescer.submit(4), coalescer.submit(5)];
    flushes[1]!.fail(new Error('refused'));
    await expect(fourth).rejects.toThrow('refused');
    await tick();
    flushes[2]!.finish();
    expect(await fifth).toBe('done 5');
  });
});

let w: World;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await startWorld();
  const db = w.knex();
  ids.flow = await seedFlow(db, w.ids.acme!, { name: 'batched', versions: [BARE, TARGETED] });
  ids.r1 = await seedDevice(db, w.ids.acme!, 'r1');
  ids.key = await createSecret(w, 'alice', 'batching/key', KEY);
});
afterAll(async () => {
  await w?.close();
});

const queries = (work: () => Promise<unknown>) => queriesDuring(w, work);

const countOf = async (table: string, where: Record<string, unknown>) =>
  Number((await w.knex()(table).where(where).count({ n: '*' }))[0]!.n);

describe('concurrent admissions through the API', () => {
  it(`${CONCURRENT} concurrent POST /runs: every run and its run.started entry, in fewer statements than runs`, async () => {
    const body = { flow_id: ids.flow, targets: { routers: [ids.r1] } };
    expect((await call(w, 'alice', 'POST', '/runs', body)).status).toBe(201); // caches warm
    const before = await countOf('runs', { flow_id: ids.flow });
    let answers: Answer[] = [];
    const sent = await queries(async () => {
      // On PostgreSQL the first statement is held back by a lock on runs until every request has reached
      // admission, so the sharing does not depend on how this busy host schedules the requests.
      const blocker = POSTGRES_ADMIN_URL ? await w.knex().transaction() : undefined;
      await blocker?.raw('LOCK TABLE runs IN SHARE MODE');
      const pending = Promise.all(Array.from({ length: CONCURRENT }, () => call(w, 'alice', 'POST', '/runs', body)));
      if (blocker) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await blocker.commit();
      }
      answers = await pending;
    });
    expect(answers.map((a) => a.status)).toEqual(Array(CONCURRENT).fill(201));
    const runIds = answers.map((a) => a.body.id as string);
    expect(new Set(runIds).size).toBe(CONCURRENT);
    expect(await countOf('runs', { flow_id: ids.flow })).toBe(before + CONCURRENT);
    const entries = await w.knex()('audit_logs').where({ event_type: 'run.started' }).whereIn('resource_id', runIds).select('resource_id');
    expect(entries.map((e) => e.resource_id).sort()).toEqual([...runIds].sort());
    const carried = admissionsPerStatement(sent);
    expect(carried.reduce((sum, n) => sum + n, 0)).toBe(CONCURRENT);
    // Embedded, a statement runs in this process and is done before the next request is read, so
    // requests meet in one statement only over a network round trip (the repository test below shows
    // the sharing itself on both backends).
    if (POSTGRES_ADMIN_URL) {
      expect(carried.length).toBeLessThan(CONCURRENT);
      expect(Math.max(...carried)).toBeGreaterThan(1);
    }
  });

  it('concurrent triggers, each key sent twice: one run and one accepted delivery per key, the twin answered 409 with its delivery id', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.flow, secret_id: ids.key, rate_limit_per_minute: 1000 });
    expect((await fire(w, endpoint, KEY, {})).status).toBe(202); // caches warm
    const keys = Array.from({ length: CONCURRENT / 2 }, () => randomUUID());
    const payload = { related_targets: { routers: [ids.r1] } };
    const answers = await Promise.all([...keys, ...keys].map((key) => fire(w, endpoint, KEY, payload, { 'x-idempotency-key': key })));
    for (const [i, key] of keys.entries()) {
      const pair = [answers[i]!, answers[i + keys.length]!];
      expect(pair.map((a) => a.status).sort()).toEqual([202, 409]);
      const accepted = pair.find((a) => a.status === 202)!;
      const refused = pair.find((a) => a.status === 409)!;
      expect(refused.body.code).toBe('duplicate_delivery');
      expect(refused.body.delivery_id).toBe(accepted.body.delivery_id);
      const deliveries = await w
        .knex()('webhook_deliveries')
        .where({ webhook_endpoint_id: endpoint.id, idempotency_key: key, response_status: 202 })
        .select('id', 'run_ids');
      expect(deliveries).toHaveLength(1);
      const runs = await w.knex()('runs').whereRaw("trigger_details_json->>'delivery_id' = ?", [deliveries[0]!.id]).select('id');
      expect(runs).toHaveLength(1);
    }
  });
});

const newRun = (flowId: string): NewRun => {
  const id = randomUUID();
  return {
    id,
    org_id: w.ids.acme!,
    flow_id: flowId,
    flow_version: 1,
    flow_name: 'batched',
    name: 'batched',
    params: {},
    targets: {},
    trigger_source: 'manual',
    trigger_details: {},
    workflow_id: `run-${id}`,
    created_by: 'sub-alice',
  };
};
const entry = (run: NewRun): AuditRow => ({
  org_id: run.org_id,
  event_type: 'run.started',
  actor_sub: 'sub-alice',
  actor_username: 'alice',
  resource_type: 'run',
  resource_id: run.id,
  action: 'run:trigger',
  outcome: 'success',
  client_ip: null,
  user_agent: null,
  details_json: {},
});

describe('one statement for several admissions (AdmissionRepo)', () => {
  it('answers each admission of a failed statement alone: a purged flow is gone, a dead device not admitted, the rest written', async () => {
    const repo = new AdmissionRepo();
    const db = w.knex();
    const devices = (list: string[]) => ({ orgId: w.ids.acme!, ids: list });
    const lead = newRun(ids.flow!);
    const good = [newRun(ids.flow!), newRun(ids.flow!)];
    const purged = newRun(UNKNOWN_ID);
    const deadDevice = newRun(ids.flow!);
    let outcomes: unknown[] = [];
    const sent = await queries(async () => {
      // The lead's statement is in flight while the rest arrive: they share the next one, which the
      // purged flow's foreign key fails as a whole.
      outcomes = await Promise.all([
        repo.insert(db, lead, devices([ids.r1!]), entry(lead)),
        repo.insert(db, good[0]!, devices([ids.r1!]), entry(good[0]!)),
        repo.insert(db, purged, devices([]), entry(purged)),
        repo.insert(db, deadDevice, devices([UNKNOWN_ID]), entry(deadDevice)),
        repo.insert(db, good[1]!, devices([]), entry(good[1]!)),
      ]);
    });
    // The lead alone, the four others in one statement, then each of those four alone again.
    expect(admissionsPerStatement(sent)).toEqual([1, 4, 1, 1, 1, 1]);
    expect(outcomes.map((o) => (typeof o === 'string' ? o : (o as { id: string }).id))).toEqual([
      lead.id,
      good[0]!.id,
      'gone',
      'not_admitted',
      good[1]!.id,
    ]);
    for (const run of [lead, ...good]) {
      expect(await countOf('runs', { id: run.id })).toBe(1);
      expect(await countOf('audit_logs', { resource_id: run.id, event_type: 'run.started' })).toBe(1);
    }
    for (const run of [purged, deadDevice]) {
      expect(await countOf('runs', { id: run.id })).toBe(0);
      expect(await countOf('audit_logs', { resource_id: run.id })).toBe(0);
    }
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('an unreachable database', () => {
  it("fails each waiting admission with the first statement's connection error, without sending them or retrying them one by one", async () => {
    const unreachable = knexFactory({
      client: 'pg',
      connection: { host: '127.0.0.1', port: await closedPort(), connectionTimeoutMillis: 1000 },
      pool: { min: 0, max: 2, acquireTimeoutMillis: 2000 },
    });
    const repo = new AdmissionRepo();
    const runs = Array.from({ length: 4 }, () => newRun(ids.flow!));
    // The first admission is sent alone, the other three wait; its failure fails them too, none is sent.
    const client = unreachable.client as { acquireConnection(): Promise<unknown> };
    const acquire = client.acquireConnection.bind(client);
    let attempts = 0;
    client.acquireConnection = () => {
      attempts += 1;
      return acquire();
    };
    const outcomes = await Promise.allSettled(
      runs.map((run) => repo.insert(unreachable, run, { orgId: w.ids.acme!, ids: [] }, entry(run))),
    );
    await unreachable.destroy();
    expect(outcomes.map((o) => o.status)).toEqual(Array(4).fill('rejected'));
    for (const outcome of outcomes) expect(((outcome as PromiseRejectedResult).reason as { code?: string }).code).toBe('ECONNREFUSED');
    expect(attempts).toBe(1);
  });
});
