import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BARE,
  call,
  count,
  createEndpoint,
  createSecret,
  fire,
  hook,
  nowSeconds,
  seedDevice,
  seedFlow,
  sign,
  signed,
  startWorld,
  TARGETED,
  UNKNOWN_ID,
  type Answer,
  type Endpoint,
  type World,
} from './helpers/webhooks-fixtures.js';

/**
 * `POST /hooks/{path_token}` over real HTTP: every status of the spec's error table with what it leaves
 * in the delivery journal and the audit log, the signature rules, bearer mode, the source allow-list
 * over IPv4 and IPv6 sockets, idempotency under concurrency, the delivery limit, and the body rules.
 * The daemon listens on `::` so one test can call it from 127.0.0.1 (an IPv4-mapped peer) and ::1.
 */
const MAX_TARGETS = 150;
const MAX_BODY = 16_384;
const KEY = 'trigger-signing-key';
const TOKEN = 'bearer-token-value-0123456789';

let w: World;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await startWorld({
    SERVICE_HOST: '::',
    SERVICE_INVENTORY_MAX_RUN_TARGETS: String(MAX_TARGETS),
    SERVICE_WEBHOOK_MAX_BODY_BYTES: String(MAX_BODY),
  });
  const db = w.knex();
  ids.bare = await seedFlow(db, w.ids.acme!, { name: 'bare', versions: [BARE] });
  ids.targeted = await seedFlow(db, w.ids.acme!, { name: 'targeted', versions: [BARE, TARGETED] });
  ids.locked = await seedFlow(db, w.ids.acme!, { name: 'locked', versions: [BARE], manualRuns: false });
  ids.draftOnly = await seedFlow(db, w.ids.acme!, { name: 'draft-only' });
  ids.theirs = await seedFlow(db, w.ids.globex!, { name: 'theirs', versions: [BARE] });
  ids.r1 = await seedDevice(db, w.ids.acme!, 'r1');
  ids.r2 = await seedDevice(db, w.ids.acme!, 'r2', { provider_id: `netbox:main:${w.ids.acme}`, external_id: '17' });
  ids.r3 = await seedDevice(db, w.ids.acme!, 'r3', { provider_id: `netbox:main:${w.ids.acme}`, external_id: 'sw-18' });
  ids.c1 = await seedDevice(db, w.ids.commons!, 'c1', { provider_id: `netbox:main:${w.ids.commons}`, external_id: '17' });
  ids.g1 = await seedDevice(db, w.ids.globex!, 'g1', { provider_id: `netbox:main:${w.ids.globex}`, external_id: '17' });
  ids.key = await createSecret(w, 'alice', 'hooks/key', KEY);
  ids.token = await createSecret(w, 'alice', 'hooks/token', TOKEN);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await w?.close();
});

/** An endpoint of acme signed with KEY, on the flow `bare` unless told otherwise. */
const endpoint = (fields: Record<string, unknown> = {}) => createEndpoint(w, { flow_id: ids.bare, secret_id: ids.key, ...fields });

interface Effects {
  readonly answer: Answer;
  /** Journal rows the request added. */
  readonly deliveries: Record<string, any>[];
  /** `webhook.*` entries on the endpoint the request added. */
  readonly audits: Record<string, any>[];
  /** Runs the request added (anywhere). */
  readonly runs: Record<string, any>[];
}

/** Sends one request and answers what it left behind: journal rows, webhook audit entries, runs. */
async function effects(target: Endpoint, send: () => Promise<Answer>): Promise<Effects> {
  const db = w.knex();
  const [deliveries, audits, runs] = await Promise.all([
    db('webhook_deliveries').where({ webhook_endpoint_id: target.id }).pluck('id'),
    db('audit_logs').where({ resource_id: target.id }).pluck('id'),
    db('runs').pluck('id'),
  ]);
  const answer = await send();
  return {
    answer,
    deliveries: await db('webhook_deliveries')
      .where({ webhook_endpoint_id: target.id })
      .whereNotIn('id', deliveries.length ? deliveries : [UNKNOWN_ID])
      .select(),
    audits: await db('audit_logs')
      .where({ resource_id: target.id })
      .where('event_type', 'like', 'webhook.%')
      .whereNotIn('id', audits.length ? audits : [UNKNOWN_ID])
      .select(),
    runs: await db('runs')
      .whereNotIn('id', runs.length ? runs : [UNKNOWN_ID])
      .select(),
  };
}

/** A refusal: status and code answered, no run, one `webhook.rejected` entry, and one journal row or none. */
function expectRefused(
  result: Effects,
  status: number,
  code: string,
  journaled: boolean,
): { delivery: Record<string, any> | undefined; audit: Record<string, any> } {
  expect(result.answer.status, JSON.stringify(result.answer.body)).toBe(status);
  expect(result.answer.body.code).toBe(code);
  expect(result.runs).toHaveLength(0);
  expect(result.deliveries).toHaveLength(journaled ? 1 : 0);
  if (journaled) expect(result.deliveries[0]).toMatchObject({ response_status: status, run_ids: [] });
  expect(result.audits).toHaveLength(1);
  const audit = result.audits[0]!;
  expect(audit).toMatchObject({
    event_type: 'webhook.rejected',
    actor_sub: 'system:webhook',
    action: 'webhook:receive',
    resource_type: 'webhook_endpoint',
    outcome: 'failure',
    org_id: w.ids.acme,
  });
  expect(audit.details_json).toMatchObject({
    code,
    status,
    source_ip_masked: expect.any(String),
    delivery_id: journaled ? result.deliveries[0]!.id : null,
  });
  return { delivery: result.deliveries[0], audit };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('an accepted trigger', () => {
  it('answers 202 with the envelope, journals one delivery, starts one run and writes both audit entries', async () => {
    const target = await endpoint({ flow_id: ids.targeted });
    const body = JSON.stringify({ params: { change_id: 'CHG42' }, related_targets: { routers: [ids.r1] } });
    const result = await effects(target, () =>
      hook(w, target.path_token, body, signed(KEY, body, { 'x-idempotency-key': 'evt-accepted' })),
    );
    expect(result.answer.status).toBe(202);
    const envelope = result.answer.body;
    expect(Object.keys(envelope).sort()).toEqual(['delivery_id', 'triggered_runs']);
    expect(envelope.triggered_runs).toHaveLength(1);
    const [triggered] = envelope.triggered_runs;
    expect(Object.keys(triggered).sort()).toEqual([
      'flow_id',
      'flow_name',
      'run_id',
      'target_id',
      'target_name',
      'target_type',
      'workflow_id',
    ]);
    expect(triggered).toMatchObject({
      target_type: 'flow',
      target_id: ids.targeted,
      flow_id: ids.targeted,
      target_name: 'targeted',
      flow_name: 'targeted',
      workflow_id: expect.any(String),
    });

    expect(result.runs).toHaveLength(1);
    const run = result.runs[0]!;
    expect(run).toMatchObject({
      id: triggered.run_id,
      org_id: w.ids.acme,
      flow_id: ids.targeted,
      flow_version: 2,
      trigger_source: 'webhook',
      created_by: 'system:webhook',
      workflow_id: triggered.workflow_id,
    });
    expect(run.params_json).toEqual({ change_id: 'CHG42' });
    expect(run.targets_json).toEqual({ routers: [ids.r1] });
    expect(run.trigger_details_json).toMatchObject({ webhook_endpoint_id: target.id, delivery_id: envelope.delivery_id });

    expect(result.deliveries).toHaveLength(1);
    expect(result.deliveries[0]).toMatchObject({
      id: envelope.delivery_id,
      idempotency_key: 'evt-accepted',
      signature_valid: true,
      source_ip: '127.0.0.1',
      request_body_hash: sha256(body),
      response_status: 202,
      error_detail: null,
      run_ids: [triggered.run_id],
    });

    expect(result.audits).toHaveLength(1);
    expect(result.audits[0]).toMatchObject({
      event_type: 'webhook.triggered',
      actor_sub: 'system:webhook',
      action: 'webhook:receive',
      resource_type: 'webhook_endpoint',
      outcome: 'success',
      org_id: w.ids.acme,
    });
    expect(result.audits[0]!.details_json).toMatchObject({
      delivery_id: envelope.delivery_id,
      run_id: triggered.run_id,
      source_ip_masked: '127.0.0.0',
    });
    const started = await w.knex()('audit_logs').where({ event_type: 'run.started', resource_id: triggered.run_id });
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ actor_sub: 'system:webhook', resource_type: 'run', action: 'webhook:receive', org_id: w.ids.acme });
    expect(started[0].details_json).toMatchObject({ trigger_source: 'webhook', flow_id: ids.targeted, flow_version: 2 });
    expect(JSON.stringify([result.audits, started])).not.toContain(KEY);

    expect((await w.knex()('webhook_endpoints').where({ id: target.id }).first()).last_triggered_at).not.toBeNull();
  });

  it('runs a pinned version, and the whole body becomes params when it has neither params nor related_targets', async () => {
    const pinned = await endpoint({ flow_id: ids.targeted, flow_version: 2 });
    const answer = await fire(w, pinned, KEY, { change_id: 'CHG7' });
    expect(answer.status).toBe(202);
    expect(await w.knex()('runs').where({ id: answer.body.triggered_runs[0].run_id }).first()).toMatchObject({
      flow_version: 2,
      params_json: { change_id: 'CHG7' },
      targets_json: {},
    });
  });

  it('starts a flow whose manual runs are switched off', async () => {
    const target = await endpoint({ flow_id: ids.locked });
    const answer = await fire(w, target, KEY, {});
    expect(answer.status).toBe(202);
    expect(answer.body.triggered_runs[0]).toMatchObject({ flow_id: ids.locked, flow_name: 'locked' });
  });
});

describe('the error table', () => {
  it('400 flow_not_committed: journaled and audited, no run', async () => {
    const target = await endpoint({ flow_id: ids.draftOnly });
    const { delivery, audit } = expectRefused(await effects(target, () => fire(w, target, KEY, {})), 400, 'flow_not_committed', true);
    expect(delivery).toMatchObject({ signature_valid: true, source_ip: '127.0.0.1' });
    expect(audit.details_json.reason).toBe('flow_not_committed');
  });

  it("400 unknown_device_reference: the spec's message, in the answer, the journal and the audit entry", async () => {
    const target = await endpoint({ flow_id: ids.targeted });
    const payload = { related_targets: { routers: [{ provider_id: 'netbox:main', external_id: '404' }] } };
    const { delivery, audit } = expectRefused(
      await effects(target, () => fire(w, target, KEY, payload)),
      400,
      'unknown_device_reference',
      true,
    );
    const message =
      "related_targets names devices not in this organization's inventory: routers: provider_id='netbox:main' external_id='404'";
    expect((await fire(w, target, KEY, payload)).body.detail).toBe(message);
    expect(delivery!.error_detail).toBe(message);
    expect(audit.details_json.error).toBe(message);
  });

  it('401 webhook_auth_failed: journaled with signature_valid false', async () => {
    const target = await endpoint();
    const body = '{}';
    const { delivery, audit } = expectRefused(
      await effects(target, () => hook(w, target.path_token, body, signed('wrong-key', body))),
      401,
      'webhook_auth_failed',
      true,
    );
    expect(delivery).toMatchObject({ signature_valid: false, request_body_hash: sha256(body) });
    expect(audit.details_json.reason).toBe('bad_signature');
    const missing = await effects(target, () => hook(w, target.path_token, body));
    expectRefused(missing, 401, 'webhook_auth_failed', true);
    expect(missing.answer.body.reason).toBe('missing_headers');
  });

  it('403 source_not_allowed: journaled and audited with the masked address', async () => {
    const target = await endpoint({ allowed_source_ips: ['10.0.0.0/8'] });
    const { delivery, audit } = expectRefused(await effects(target, () => fire(w, target, KEY, {})), 403, 'source_not_allowed', true);
    expect(delivery).toMatchObject({ signature_valid: true, source_ip: '127.0.0.1' });
    expect(audit.details_json.source_ip_masked).toBe('127.0.0.0');
  });

  it('404: an unknown or malformed token and a disabled endpoint; nothing journaled, nothing audited', async () => {
    const target = await endpoint();
    for (const token of ['A'.repeat(43), 'short', `${target.path_token}x`.repeat(2)]) {
      expect(await hook(w, token, '{}', signed(KEY, '{}')), token).toMatchObject({ status: 404, body: { code: 'resource_not_found' } });
    }
    expect((await call(w, 'alice', 'PATCH', `/webhooks/${target.id}`, { enabled: false })).status).toBe(200);
    const disabled = await effects(target, () => fire(w, target, KEY, {}));
    expect(disabled.answer).toMatchObject({ status: 404, body: { code: 'resource_not_found' } });
    expect([disabled.deliveries, disabled.audits, disabled.runs]).toEqual([[], [], []]);
    expect((await call(w, 'alice', 'PATCH', `/webhooks/${target.id}`, { enabled: true })).status).toBe(200);
    expect((await fire(w, target, KEY, {})).status).toBe(202);
  });

  it("404 while the endpoint's organization is deactivated; nothing journaled, no run", async () => {
    const target = await endpoint();
    expect((await call(w, 'root', 'PATCH', `/orgs/${w.ids.acme}`, { is_active: false })).status).toBe(200);
    try {
      const refused = await effects(target, () => fire(w, target, KEY, {}));
      expect(refused.answer).toMatchObject({ status: 404, body: { code: 'resource_not_found' } });
      expect([refused.deliveries, refused.audits, refused.runs]).toEqual([[], [], []]);
    } finally {
      expect((await call(w, 'root', 'PATCH', `/orgs/${w.ids.acme}`, { is_active: true })).status).toBe(200);
    }
    expect((await fire(w, target, KEY, {})).status).toBe(202);
  });

  it('404 flow_version_not_found: the pinned version went away', async () => {
    const flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'shrinking', versions: [BARE, BARE] });
    const target = await endpoint({ flow_id: flow, flow_version: 2 });
    await w.knex()('flow_versions').where({ flow_id: flow, version: 2 }).del();
    expectRefused(await effects(target, () => fire(w, target, KEY, {})), 404, 'flow_version_not_found', true);
  });

  it('409 duplicate_delivery: an accepted key answers the original delivery and run, journaled as a 409 row', async () => {
    const target = await endpoint();
    const first = await fire(w, target, KEY, {}, { 'x-idempotency-key': 'evt-dup' });
    expect(first.status).toBe(202);
    const again = await effects(target, () => fire(w, target, KEY, { changed: 'body' }, { 'x-idempotency-key': 'evt-dup' }));
    const { delivery, audit } = expectRefused(again, 409, 'duplicate_delivery', true);
    expect(again.answer.body).toMatchObject({ delivery_id: first.body.delivery_id, run_id: first.body.triggered_runs[0].run_id });
    expect(delivery).toMatchObject({ idempotency_key: 'evt-dup', signature_valid: true });
    expect(audit.details_json.duplicate_of).toBe(first.body.delivery_id);
  });

  it('lets a refused event be retried with the same key; only an accepted one answers 409 afterwards', async () => {
    const target = await endpoint({ flow_id: ids.targeted });
    const refused = await fire(w, target, KEY, { related_targets: { routers: [UNKNOWN_ID] } }, { 'x-idempotency-key': 'evt-retry' });
    expect(refused.status).toBe(400);
    const accepted = await fire(w, target, KEY, { related_targets: { routers: [ids.r1] } }, { 'x-idempotency-key': 'evt-retry' });
    expect(accepted.status).toBe(202);
    expect(await fire(w, target, KEY, {}, { 'x-idempotency-key': 'evt-retry' })).toMatchObject({
      status: 409,
      body: { delivery_id: accepted.body.delivery_id },
    });
  });

  it('413 payload_too_large: journaled without a body hash', async () => {
    const target = await endpoint();
    const body = JSON.stringify({ blob: 'x'.repeat(MAX_BODY) });
    const { delivery } = expectRefused(
      await effects(target, () => hook(w, target.path_token, body, signed(KEY, body))),
      413,
      'payload_too_large',
      true,
    );
    expect(delivery).toMatchObject({ request_body_hash: null, signature_valid: false });
    expect((await hook(w, target.path_token, 'x'.repeat(MAX_BODY), signed(KEY, 'x'.repeat(MAX_BODY)))).status).not.toBe(413);
  });

  it('422 no_linked_flow: the flow row was removed out of band; journaled with "No linked flow"', async () => {
    const flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'purged out of band', versions: [BARE] });
    const target = await endpoint({ flow_id: flow });
    await w.knex()('flows').where({ id: flow }).del();
    expect((await call(w, 'alice', 'GET', `/webhooks/${target.id}`)).body).toMatchObject({ flow_id: null, flow_name: null });
    const { delivery } = expectRefused(await effects(target, () => fire(w, target, KEY, {})), 422, 'no_linked_flow', true);
    expect(delivery!.error_detail).toBe('No linked flow');
  });

  it('422 flow_not_found: the linked flow is soft-deleted, or outside the organization and not shared', async () => {
    const flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'deleted out of band', versions: [BARE] });
    const deleted = await endpoint({ flow_id: flow });
    await w.knex()('flows').where({ id: flow }).update({ deleted_at: w.knex().fn.now() });
    expectRefused(await effects(deleted, () => fire(w, deleted, KEY, {})), 422, 'flow_not_found', true);

    const foreign = await endpoint();
    await w.knex()('webhook_endpoints').where({ id: foreign.id }).update({ flow_id: ids.theirs });
    expectRefused(await effects(foreign, () => fire(w, foreign, KEY, {})), 422, 'flow_not_found', true);
  });

  it.each([
    ['not JSON', '{"a":'],
    ['not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])],
    ['an array', '[1,2]'],
    ['a string', '"text"'],
    ['params not an object', '{"params":[1]}'],
    ['related_targets not an object', '{"related_targets":["r1"]}'],
    ['a role not an array', '{"related_targets":{"routers":"r1"}}'],
    ['a malformed reference', '{"related_targets":{"routers":["not-a-uuid"]}}'],
    ['a reference with an extra key', '{"related_targets":{"routers":[{"provider_id":"p","external_id":"1","name":"x"}]}}'],
    ['a param holding NUL', '{"params":{"change_id":"CHG1\\u0000"}}'],
    ['a param holding an unpaired surrogate', '{"params":{"change_id":"CHG1\\ud800"}}'],
    ['an external id holding NUL', '{"related_targets":{"routers":[{"provider_id":"p","external_id":"1\\u0000"}]}}'],
  ])('422 invalid_payload: the body is %s', async (_, body) => {
    const target = await endpoint({ flow_id: ids.targeted });
    const { delivery } = expectRefused(
      await effects(target, () => hook(w, target.path_token, body, signed(KEY, body))),
      422,
      'invalid_payload',
      true,
    );
    expect(delivery!.signature_valid).toBe(true);
  });

  it('422 validation_failed: params the flow version does not accept', async () => {
    const target = await endpoint({ flow_id: ids.targeted });
    const result = await effects(target, () => fire(w, target, KEY, { params: { change_id: 'nope' } }));
    expectRefused(result, 422, 'validation_failed', true);
    expect(result.answer.body.errors.map((e: { path: string }) => e.path)).toEqual(['params.change_id']);
  });

  it('503 secret_backend_unavailable: no secret linked, the secret deleted, or its value not decrypting; audited, never journaled', async () => {
    const none = await endpoint({ secret_id: null });
    const first = expectRefused(await effects(none, () => fire(w, none, KEY, {})), 503, 'secret_backend_unavailable', false);
    expect(first.audit.details_json.reason).toBe('secret_missing');

    const doomed = await createSecret(w, 'alice', 'hooks/doomed', 'doomed-key');
    const orphan = await endpoint({ secret_id: doomed });
    expect((await fire(w, orphan, 'doomed-key', {})).status).toBe(202);
    expect((await call(w, 'alice', 'DELETE', `/secrets/${doomed}`)).status).toBe(204);
    expect((await w.knex()('webhook_endpoints').where({ id: orphan.id }).first()).secret_id).toBeNull();
    expectRefused(await effects(orphan, () => fire(w, orphan, 'doomed-key', {})), 503, 'secret_backend_unavailable', false);

    const broken = await createSecret(w, 'alice', 'hooks/broken', 'broken-key');
    const victim = await endpoint({ secret_id: broken });
    expect((await fire(w, victim, 'broken-key', {})).status).toBe(202);
    const corrupted = await w
      .knex()('secret_values')
      .where({ org_id: w.ids.acme, location: 'orgs/acme/secrets/hooks/broken' })
      .update({ ciphertext: Buffer.from('not the ciphertext') });
    expect(corrupted).toBe(1);
    const result = await effects(victim, () => fire(w, victim, 'broken-key', {}));
    expectRefused(result, 503, 'secret_backend_unavailable', false);
    expect(result.answer.headers.get('retry-after')).toBe('30');
    expect(result.audits[0]!.details_json.reason).toBe('secret_backend_unavailable');
  });
});

describe('the signature', () => {
  it('accepts exactly the lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>", computed here with node:crypto', async () => {
    const target = await endpoint();
    const body = '{"params":{},"note":"caf\u00e9 \u2603"}';
    const timestamp = String(nowSeconds());
    const good = sign(KEY, timestamp, body);
    const send = (bytes: string | Buffer, signature: string, ts = timestamp) =>
      hook(w, target.path_token, bytes, { 'x-service-timestamp': ts, 'x-service-signature': signature });
    expect((await send(body, good)).status).toBe(202);

    const refusals: [string, Promise<Answer>][] = [
      ['one changed body byte', send(body.replace('caf', 'caF'), good)],
      ['a re-serialised body', send(JSON.stringify(JSON.parse(body), null, 1), good)],
      ['uppercase hex', send(body, good.toUpperCase())],
      ['63 hex digits', send(body, good.slice(0, 63))],
      ['65 hex digits', send(body, `${good}0`)],
      ['trailing garbage', send(body, `${good}zz`)],
      ['a "sha256=" prefix', send(body, `sha256=${good}`)],
      ['another timestamp', send(body, good, String(Number(timestamp) - 1))],
      ['a signature over the body alone', send(body, sign(KEY, '', body).slice(0))],
    ];
    for (const [what, pending] of refusals) {
      const answer = await pending;
      expect(answer.status, what).toBe(401);
      expect(answer.body.code, what).toBe('webhook_auth_failed');
    }
  });

  it('accepts timestamps within the replay window either way (now±300) and refuses now±301', async () => {
    const target = await endpoint();
    const now = nowSeconds();
    // The daemon runs in this process: its clock is pinned to the middle of second `now` for this test.
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now * 1000 + 500);
    try {
      const at = (ts: number) => {
        const body = JSON.stringify({ params: {}, at: ts });
        return hook(w, target.path_token, body, { 'x-service-timestamp': String(ts), 'x-service-signature': sign(KEY, String(ts), body) });
      };
      expect((await at(now - 300)).status).toBe(202);
      expect((await at(now + 300)).status).toBe(202);
      for (const ts of [now - 301, now + 301]) {
        expect(await at(ts)).toMatchObject({ status: 401, body: { code: 'webhook_auth_failed', reason: 'stale_timestamp' } });
      }
    } finally {
      clock.mockRestore();
    }
  });

  it('refuses a timestamp that is not a plain decimal integer, even one equal to now', async () => {
    const target = await endpoint();
    const now = String(nowSeconds());
    const body = '{}';
    const literal = ['1e9', '+17', '17abc', ' 17'];
    const equalToNow = [`${now}e0`, `+${now}`, `${now}abc`, `${now}.0`, `-${now}`, `0x${Number(now).toString(16)}`, `${now},${now}`];
    for (const ts of [...literal, ...equalToNow]) {
      const answer = await hook(w, target.path_token, body, { 'x-service-timestamp': ts, 'x-service-signature': sign(KEY, ts, body) });
      expect(answer.status, ts).toBe(401);
      expect(answer.body.code, ts).toBe('webhook_auth_failed');
    }
    for (const ts of equalToNow) {
      expect(
        (await hook(w, target.path_token, body, { 'x-service-timestamp': ts, 'x-service-signature': sign(KEY, ts, body) })).body.reason,
        ts,
      ).toBe('bad_timestamp');
    }
  });
});

describe('bearer mode', () => {
  it('accepts the secret as a bearer token, and refuses a wrong, missing or malformed header', async () => {
    const target = await endpoint({ auth_mode: 'bearer', secret_id: ids.token });
    const send = (headers: Record<string, string>) => hook(w, target.path_token, '{}', headers);
    expect((await send({ authorization: `Bearer ${TOKEN}` })).status).toBe(202);
    expect((await send({ authorization: `bearer ${TOKEN}` })).status).toBe(202);
    const cases: [Record<string, string>, string][] = [
      [{ authorization: `Bearer ${TOKEN}x` }, 'bad_bearer'],
      [{ authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` }, 'bad_bearer'],
      [{ authorization: `Bearer ${TOKEN} extra` }, 'bad_bearer'],
      [{ authorization: 'Bearer' }, 'bad_bearer'],
      [{}, 'missing_headers'],
      [signed(TOKEN, '{}'), 'missing_headers'],
    ];
    for (const [headers, reason] of cases) {
      const result = await effects(target, () => send(headers));
      expectRefused(result, 401, 'webhook_auth_failed', true);
      expect(result.answer.body.reason, JSON.stringify(headers)).toBe(reason);
    }
  });
});

describe('the source allow-list', () => {
  const from = (target: Endpoint, base: string, headers: Record<string, string> = {}) =>
    hook(w, target.path_token, '{}', signed(KEY, '{}', headers), base);

  it('matches an IPv4 caller, an IPv6 caller and an IPv4-mapped IPv6 caller', async () => {
    const v4 = await endpoint({ allowed_source_ips: ['127.0.0.0/8'] });
    expect((await from(v4, w.url)).status).toBe(202);
    expect((await from(v4, w.url6)).body.code).toBe('source_not_allowed');

    const v6 = await endpoint({ allowed_source_ips: ['::1/128'] });
    const accepted = await from(v6, w.url6);
    expect(accepted.status).toBe(202);
    expect((await w.knex()('webhook_deliveries').where({ id: accepted.body.delivery_id }).first()).source_ip).toBe('::1');
    const refused = await effects(v6, () => from(v6, w.url));
    expectRefused(refused, 403, 'source_not_allowed', true);

    // The dual-stack socket sees 127.0.0.1 as ::ffff:127.0.0.1; a mapped block and a plain one both match it.
    const mapped = await endpoint({ allowed_source_ips: ['::ffff:127.0.0.0/104'] });
    expect((await from(mapped, w.url)).status).toBe(202);
    expect((await from(mapped, w.url6)).status).toBe(403);

    const v6Audit = await effects(v4, () => from(v4, w.url6));
    expect(v6Audit.audits[0]!.details_json.source_ip_masked).toBe('::');
  });

  it('ignores X-Forwarded-For when proxy headers are not trusted', async () => {
    const target = await endpoint({ allowed_source_ips: ['203.0.113.0/24'] });
    const result = await effects(target, () => from(target, w.url, { 'x-forwarded-for': '203.0.113.9' }));
    const { delivery } = expectRefused(result, 403, 'source_not_allowed', true);
    expect(delivery!.source_ip).toBe('127.0.0.1');
  });
});

describe('idempotency', () => {
  it('admits 50 concurrent requests with one key exactly once; the other 49 answer 409 with that delivery', async () => {
    const target = await endpoint();
    const body = '{}';
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => hook(w, target.path_token, body, signed(KEY, body, { 'x-idempotency-key': 'evt-storm' }))),
    );
    const accepted = answers.filter((a) => a.status === 202);
    expect(accepted).toHaveLength(1);
    const deliveryId = accepted[0]!.body.delivery_id;
    const runId = accepted[0]!.body.triggered_runs[0].run_id;
    const duplicates = answers.filter((a) => a.status === 409);
    expect(duplicates).toHaveLength(49);
    for (const duplicate of duplicates)
      expect(duplicate.body).toMatchObject({ code: 'duplicate_delivery', delivery_id: deliveryId, run_id: runId });

    const db = w.knex();
    expect(await db('runs').whereRaw("trigger_details_json->>'webhook_endpoint_id' = ?", [target.id]).pluck('id')).toEqual([runId]);
    expect(await db('webhook_deliveries').where({ webhook_endpoint_id: target.id, response_status: 202 }).pluck('id')).toEqual([
      deliveryId,
    ]);
    expect(await count(db('webhook_deliveries').where({ webhook_endpoint_id: target.id, response_status: 409 }))).toBe(49);
    expect(await count(db('audit_logs').where({ event_type: 'webhook.triggered', resource_id: target.id }))).toBe(1);
    expect(
      await count(
        db('audit_logs').where({ event_type: 'run.started' }).whereRaw("details_json->'trigger'->>'webhook_endpoint_id' = ?", [target.id]),
      ),
    ).toBe(1);
  });

  it('keeps keys per endpoint, and refuses an empty key or one longer than 255 characters (journaled without it)', async () => {
    const a = await endpoint();
    const b = await endpoint();
    expect((await fire(w, a, KEY, {}, { 'x-idempotency-key': 'shared-evt' })).status).toBe(202);
    expect((await fire(w, b, KEY, {}, { 'x-idempotency-key': 'shared-evt' })).status).toBe(202);
    expect((await fire(w, a, KEY, {}, { 'x-idempotency-key': 'k'.repeat(255) })).status).toBe(202);
    const tooLong = await effects(a, () => fire(w, a, KEY, {}, { 'x-idempotency-key': 'k'.repeat(256) }));
    const { delivery } = expectRefused(tooLong, 422, 'invalid_payload', true);
    expect(delivery!.idempotency_key).toBeNull();
    expect((await fire(w, a, KEY, {}, { 'x-idempotency-key': '' })).status).toBe(422);
  });
});

describe('the delivery limit', () => {
  it('accepts exactly rate_limit_per_minute, then 429 with Retry-After (audited, not journaled), and one more after the refill interval', async () => {
    const target = await endpoint({ rate_limit_per_minute: 60 });
    // The buckets read the monotonic clock of this process: pinned, so the time the requests take refills nothing.
    // Whole milliseconds, as the bucket's exact arithmetic expects (a fractional T + 1000 - T can fall short of 1000).
    let now = Math.ceil(performance.now());
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) statuses.push((await fire(w, target, KEY, {}, { 'x-idempotency-key': `evt-${i}` })).status);
      expect(statuses.filter((s) => s === 202)).toHaveLength(60);

      const shed = await effects(target, () => fire(w, target, KEY, {}, { 'x-idempotency-key': 'evt-60' }));
      expectRefused(shed, 429, 'rate_limited', false);
      expect(shed.answer.headers.get('retry-after')).toBe('1');
      expect(shed.answer.body.limit).toBe('endpoint_delivery');

      // A retry of an accepted event is answered 409, not metered.
      expect(await fire(w, target, KEY, {}, { 'x-idempotency-key': 'evt-0' })).toMatchObject({ status: 409 });

      now += 1000; // one refill interval at 60 a minute
      const refilled = await fire(w, target, KEY, {}, { 'x-idempotency-key': 'evt-60' });
      expect(refilled.status, JSON.stringify(refilled.body)).toBe(202);
      expect((await fire(w, target, KEY, {}, { 'x-idempotency-key': 'evt-61' })).status).toBe(429);
    } finally {
      clock.mockRestore();
    }
    expect(await count(w.knex()('webhook_deliveries').where({ webhook_endpoint_id: target.id, response_status: 202 }))).toBe(61);
    expect(await count(w.knex()('webhook_deliveries').where({ webhook_endpoint_id: target.id, response_status: 429 }))).toBe(0);
  });
});

describe('the body rules', () => {
  const triggerTargets = async (payload: unknown) => {
    const target = await endpoint({ flow_id: ids.targeted });
    return fire(w, target, KEY, payload);
  };
  const runOf = async (answer: Answer) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    return w.knex()('runs').where({ id: answer.body.triggered_runs[0].run_id }).first();
  };

  it('uses only params and related_targets when either is present', async () => {
    const run = await runOf(await triggerTargets({ params: { change_id: 'CHG1' }, ignored: { anything: true } }));
    expect(run).toMatchObject({ params_json: { change_id: 'CHG1' }, targets_json: {} });
    const onlyTargets = await runOf(await triggerTargets({ related_targets: { switches: [ids.r1] }, change_id: 'not read' }));
    expect(onlyTargets).toMatchObject({ params_json: {}, targets_json: { switches: [ids.r1] } });
  });

  it('takes device UUIDs of the organization and of the shared organization', async () => {
    const run = await runOf(await triggerTargets({ related_targets: { routers: [ids.r1, ids.c1!.toUpperCase()], switches: [ids.r2] } }));
    expect(run.targets_json).toEqual({ routers: [ids.r1, ids.c1], switches: [ids.r2] });
  });

  it("resolves provider references in the endpoint's organization only, alongside UUIDs", async () => {
    const run = await runOf(
      await triggerTargets({
        related_targets: {
          routers: [{ provider_id: `netbox:main:${w.ids.acme}`, external_id: '17' }, ids.r2, ids.r1],
          switches: [{ provider_id: `netbox:main:${w.ids.acme}`, external_id: 'sw-18' }],
        },
      }),
    );
    expect(run.targets_json).toEqual({ routers: [ids.r2, ids.r1], switches: [ids.r3] });

    for (const [owner, ref] of [
      ['globex', { provider_id: `netbox:main:${w.ids.globex}`, external_id: '17' }],
      ['commons (shared)', { provider_id: `netbox:main:${w.ids.commons}`, external_id: '17' }],
    ] as const) {
      const refused = await triggerTargets({ related_targets: { routers: [ref] } });
      expect(refused, owner).toMatchObject({ status: 400, body: { code: 'unknown_device_reference' } });
      expect(refused.body.detail).toBe(
        `related_targets names devices not in this organization's inventory: routers: provider_id='${ref.provider_id}' external_id='17'`,
      );
    }
  });

  it('refuses a device UUID of another organization, deleted or unknown with 400', async () => {
    for (const device of [ids.g1!, UNKNOWN_ID]) {
      expect(await triggerTargets({ related_targets: { routers: [device] } }), device).toMatchObject({
        status: 400,
        body: { code: 'unknown_device_reference' },
      });
    }
  });

  it('refuses 101 provider references (422 too_many_provider_references) and accepts 100 before resolving them', async () => {
    const refs = (n: number) => Array.from({ length: n }, (_, i) => ({ provider_id: 'netbox:nowhere', external_id: String(i) }));
    expect(await triggerTargets({ related_targets: { routers: refs(60), switches: refs(101).slice(60) } })).toMatchObject({
      status: 422,
      body: { code: 'too_many_provider_references', limit: 100, count: 101 },
    });
    expect(await triggerTargets({ related_targets: { routers: refs(100) } })).toMatchObject({
      status: 400,
      body: { code: 'unknown_device_reference' },
    });
  });

  it('refuses more targets than SERVICE_INVENTORY_MAX_RUN_TARGETS (422 too_many_targets), all roles together', async () => {
    const many = (n: number) => Array.from({ length: n }, () => UNKNOWN_ID);
    expect(await triggerTargets({ related_targets: { routers: many(100), switches: many(MAX_TARGETS - 99) } })).toMatchObject({
      status: 422,
      body: { code: 'too_many_targets', limit: MAX_TARGETS },
    });
  });

  it('refuses a bare integer external_id with 422 external_id_not_text', async () => {
    const target = await endpoint({ flow_id: ids.targeted });
    const result = await effects(target, () =>
      fire(w, target, KEY, { related_targets: { routers: [{ provider_id: `netbox:main:${w.ids.acme}`, external_id: 17 }] } }),
    );
    expectRefused(result, 422, 'external_id_not_text', true);
    expect(result.answer.body.errors[0].path).toBe('related_targets.routers[0].external_id');
  });
});
