import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotifiedCache } from '../src/daemon/db/notified-cache.js';
import {
  BARE,
  call,
  createEndpoint,
  createSecret,
  fire,
  seedDevice,
  seedFlow,
  startWorld,
  statementsDuring,
  TARGETED,
  type Answer,
  type World,
} from './helpers/webhooks-fixtures.js';

/**
 * What an accepted trigger and a run admission read on every request (the endpoint by its token, the
 * signing secret's values, the flow with its version) is cached per instance and emptied by every change:
 * by the writing repository before the answer, and by `svc_trigger_config` (database triggers) for plain
 * SQL and other instances. On the embedded database the one session hears its own notifications, so both
 * backends run every test here; a plain SQL write from the test's own connection reaches the daemon's
 * listener exactly as another instance's write would.
 */
const KEY = 'cache-signing-key';

let w: World;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await startWorld();
  const db = w.knex();
  ids.flow = await seedFlow(db, w.ids.acme!, { name: 'cached', versions: [BARE, TARGETED] });
  ids.other = await seedFlow(db, w.ids.acme!, { name: 'other', versions: [BARE] });
  ids.r1 = await seedDevice(db, w.ids.acme!, 'r1');
  ids.key = await createSecret(w, 'alice', 'cache/key', KEY);
});
afterAll(async () => {
  await w?.close();
});

const statements = (work: () => Promise<unknown>) => statementsDuring(w, work);

/** Repeats `attempt` until `done` holds for its answer, or two seconds pass; answers the last one. */
async function within<T>(attempt: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 2000;
  let last = await attempt();
  while (!done(last) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    last = await attempt();
  }
  return last;
}

const runOf = async (answer: Answer) =>
  w
    .knex()('runs')
    .where({ id: answer.body.triggered_runs?.[0]?.run_id ?? answer.body.id })
    .first();

describe('NotifiedCache', () => {
  it('drops an answer read before an invalidation, and caches no miss', async () => {
    const cache = new NotifiedCache<string>();
    const before = cache.generation;
    cache.invalidate();
    cache.set('k', 'stale', before);
    expect(cache.get('k')).toBeUndefined();
    expect(await cache.through('k', async () => undefined)).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(await cache.through('k', async () => 'fresh')).toBe('fresh');
    expect(await cache.through('k', async () => 'never read')).toBe('fresh');
  });
});

describe('the steady path', () => {
  it('an accepted trigger is one statement once the endpoint, the secret and the flow are cached', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.flow, secret_id: ids.key });
    let answer: Answer | undefined;
    let sent: string[] = [];
    // The endpoint's own creation is also announced by NOTIFY, which empties the caches when it arrives; on a
    // loaded host that can be after the first warming trigger. The steady path is what follows it.
    for (let attempt = 0; attempt < 3 && sent.length !== 1; attempt += 1) {
      expect((await fire(w, endpoint, KEY, { related_targets: { routers: [ids.r1] } })).status).toBe(202);
      sent = await statements(async () => {
        answer = await fire(w, endpoint, KEY, { related_targets: { routers: [ids.r1] } });
      });
      expect(answer!.status).toBe(202);
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/INSERT INTO webhook_deliveries/);
  });

  it('a manual run is one statement once the membership and the flow are cached', async () => {
    const body = { flow_id: ids.flow, targets: { routers: [ids.r1] } };
    expect((await call(w, 'alice', 'POST', '/runs', body)).status).toBe(201);
    let answer: Answer | undefined;
    const sent = await statements(async () => {
      answer = await call(w, 'alice', 'POST', '/runs', body);
    });
    expect(answer!.status).toBe(201);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/INSERT INTO runs/);
  });
});

describe('changes through the API apply at the next request', () => {
  it("a secret's new value: the old key is refused, the new one accepted", async () => {
    const secret = await createSecret(w, 'alice', 'cache/rotating', 'old-key');
    const endpoint = await createEndpoint(w, { flow_id: ids.other, secret_id: secret });
    expect((await fire(w, endpoint, 'old-key', {})).status).toBe(202);
    expect((await call(w, 'alice', 'PATCH', `/secrets/${secret}`, { values: { value: 'new-key' } })).status).toBe(200);
    expect((await fire(w, endpoint, 'old-key', {})).body.code).toBe('webhook_auth_failed');
    expect((await fire(w, endpoint, 'new-key', {})).status).toBe(202);
  });

  it('an endpoint retargeted to another flow starts that flow', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.other, secret_id: ids.key });
    expect((await runOf(await fire(w, endpoint, KEY, {}))).flow_id).toBe(ids.other);
    expect((await call(w, 'alice', 'PATCH', `/webhooks/${endpoint.id}`, { flow_id: ids.flow })).status).toBe(200);
    expect((await runOf(await fire(w, endpoint, KEY, {}))).flow_id).toBe(ids.flow);
  });

  it('a flow soft-deleted through the API is not run', async () => {
    const doomed = await seedFlow(w.knex(), w.ids.acme!, { name: 'doomed', versions: [BARE] });
    expect((await call(w, 'alice', 'POST', '/runs', { flow_id: doomed })).status).toBe(201);
    expect((await call(w, 'alice', 'DELETE', `/flows/${doomed}`)).status).toBe(204);
    expect((await call(w, 'alice', 'POST', '/runs', { flow_id: doomed })).body.code).toBe('flow_not_found');
  });
});

describe('plain SQL reaches the caches by notification', () => {
  it('a version committed out of band is the one the next runs use', async () => {
    const flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'out of band', versions: [BARE] });
    expect((await runOf(await call(w, 'alice', 'POST', '/runs', { flow_id: flow }))).flow_version).toBe(1);
    await w
      .knex()('flow_versions')
      .insert({ flow_id: flow, version: 2, definition_json: JSON.stringify(BARE), committed_by: 'sub-seed' });
    await w.knex()('flows').where({ id: flow }).update({ latest_version: 2 });
    const run = await within(
      async () => runOf(await call(w, 'alice', 'POST', '/runs', { flow_id: flow })),
      (row) => row.flow_version === 2,
    );
    expect(run.flow_version).toBe(2);
  });

  it('manual runs switched off out of band are refused', async () => {
    const flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'switched', versions: [BARE] });
    expect((await call(w, 'alice', 'POST', '/runs', { flow_id: flow })).status).toBe(201);
    await w.knex()('flows').where({ id: flow }).update({ manual_runs_enabled: false });
    const answer = await within(
      () => call(w, 'alice', 'POST', '/runs', { flow_id: flow }),
      (a) => a.status !== 201,
    );
    expect(answer.body.code).toBe('manual_runs_disabled');
  });

  it('an endpoint disabled out of band stops answering', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.other, secret_id: ids.key });
    expect((await fire(w, endpoint, KEY, {})).status).toBe(202);
    await w.knex()('webhook_endpoints').where({ id: endpoint.id }).update({ enabled: false });
    const answer = await within(
      () => fire(w, endpoint, KEY, {}),
      (a) => a.status !== 202,
    );
    expect(answer).toMatchObject({ status: 404, body: { code: 'resource_not_found' } });
  });

  it("an endpoint's last_triggered_at alone does not empty the caches", async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.other, secret_id: ids.key });
    expect((await fire(w, endpoint, KEY, {})).status).toBe(202);
    await w
      .knex()('webhook_endpoints')
      .where({ id: endpoint.id })
      .update({ last_triggered_at: new Date(0) });
    // A notification would have emptied the caches by now; the flow and the secret are still cached.
    await new Promise((resolve) => setTimeout(resolve, 200));
    let answer: Answer | undefined;
    const sent = await statements(async () => {
      answer = await fire(w, endpoint, KEY, {});
    });
    expect(answer!.status).toBe(202);
    expect(sent).toHaveLength(1);
  });
});

describe('idempotency without a lookup', () => {
  it('a repeat of an accepted key answers 409 even when its body would be refused', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.flow, secret_id: ids.key });
    const first = await fire(w, endpoint, KEY, { params: { change_id: 'CHG1' } }, { 'x-idempotency-key': 'evt-cached' });
    expect(first.status).toBe(202);
    const invalid = await fire(w, endpoint, KEY, { params: { change_id: 'nope' } }, { 'x-idempotency-key': 'evt-cached' });
    expect(invalid).toMatchObject({ status: 409, body: { code: 'duplicate_delivery', delivery_id: first.body.delivery_id } });
    const unknownDevice = await fire(
      w,
      endpoint,
      KEY,
      { related_targets: { routers: ['00000000-0000-4000-8000-000000000000'] } },
      { 'x-idempotency-key': 'evt-cached' },
    );
    expect(unknownDevice).toMatchObject({ status: 409, body: { code: 'duplicate_delivery' } });
    const runs = await w.knex()('runs').whereRaw("trigger_details_json->>'webhook_endpoint_id' = ?", [endpoint.id]).select('id');
    expect(runs).toHaveLength(1);
  });

  it('a repeat of an accepted key is not metered by the delivery limit', async () => {
    const endpoint = await createEndpoint(w, { flow_id: ids.other, secret_id: ids.key, rate_limit_per_minute: 3 });
    expect((await fire(w, endpoint, KEY, {}, { 'x-idempotency-key': 'evt-metered' })).status).toBe(202);
    for (let i = 0; i < 4; i += 1) {
      expect((await fire(w, endpoint, KEY, {}, { 'x-idempotency-key': 'evt-metered' })).body.code).toBe('duplicate_delivery');
    }
    // Two of the three tokens are left: the repeats took none.
    expect((await fire(w, endpoint, KEY, {}, { 'x-idempotency-key': 'evt-new-1' })).status).toBe(202);
    expect((await fire(w, endpoint, KEY, {}, { 'x-idempotency-key': 'evt-new-2' })).status).toBe(202);
    expect(await fire(w, endpoint, KEY, {}, { 'x-idempotency-key': 'evt-new-3' })).toMatchObject({
      status: 429,
      body: { code: 'rate_limited', limit: 'endpoint_delivery' },
    });
    // Even with the limit spent, a repeat answers 409 rather than being shed.
    expect((await fire(w, endpoint, KEY, {}, { 'x-idempotency-key': 'evt-metered' })).body.code).toBe('duplicate_delivery');
  });
});
