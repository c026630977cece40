import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BARE,
  count,
  createEndpoint,
  createSecret,
  hook,
  seedFlow,
  signed,
  startWorld,
  type Answer,
  type Endpoint,
  type World,
} from './helpers/webhooks-fixtures.js';

/**
 * A bounded loopback load run: a fixed number of triggers, a few at a time, mixing valid requests (each
 * with its own event key), requests signed with the wrong key, and replays of valid events racing their
 * originals. Afterwards every accepted request must have exactly one run and one delivery, every event
 * exactly one acceptance, and nothing else may exist.
 */
const REQUESTS = 240;
const CONCURRENCY = 12;
/** Stop starting requests after this long, whatever the count (a loaded machine must not hang the suite). */
const DEADLINE_MS = 90_000;
const KEY = 'load-signing-key';

let w: World;
let target: Endpoint;

beforeAll(async () => {
  w = await startWorld();
  const flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'load', versions: [BARE] });
  const secret = await createSecret(w, 'alice', 'hooks/load', KEY);
  target = await createEndpoint(w, { flow_id: flow, secret_id: secret, rate_limit_per_minute: 100_000 });
});
afterAll(async () => {
  await w?.close();
});

type Kind = 'valid' | 'invalid' | 'replay';

/** Request i: three valid events in five, one wrong signature, one replay of an event sent just before. */
function request(i: number): { kind: Kind; event: string } {
  switch (i % 5) {
    case 3:
      return { kind: 'invalid', event: `bad-${i}` };
    case 4:
      return { kind: 'replay', event: `evt-${i - 2 - (i % 3)}` };
    default:
      return { kind: 'valid', event: `evt-${i}` };
  }
}

describe('a bounded load run', () => {
  it(
    'leaves exactly one run and one delivery per accepted request, one acceptance per event, and nothing else',
    { timeout: DEADLINE_MS + 60_000 },
    async () => {
      const db = w.knex();
      const runsBefore = await count(db('runs'));
      const auditsBefore = await count(db('audit_logs'));
      const typesBefore = await Promise.all(
        ['webhook.triggered', 'run.started', 'webhook.rejected'].map((type) => count(db('audit_logs').where({ event_type: type }))),
      );
      const answers: { kind: Kind; event: string; answer: Answer }[] = [];
      const deadline = Date.now() + DEADLINE_MS;
      let next = 0;
      const worker = async () => {
        while (next < REQUESTS && Date.now() < deadline) {
          const { kind, event } = request(next++);
          const body = JSON.stringify({ params: {}, event });
          const headers = signed(kind === 'invalid' ? 'not-the-key' : KEY, body, { 'x-idempotency-key': event });
          answers.push({ kind, event, answer: await hook(w, target.path_token, body, headers) });
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      expect(answers.length).toBeGreaterThan(REQUESTS / 2);

      const accepted = answers.filter((a) => a.answer.status === 202);
      const refused = answers.filter((a) => a.answer.status === 401);
      const duplicates = answers.filter((a) => a.answer.status === 409);
      expect(
        accepted.length + refused.length + duplicates.length,
        JSON.stringify(answers.filter((a) => ![202, 401, 409].includes(a.answer.status)).slice(0, 3)),
      ).toBe(answers.length);
      expect(duplicates.length).toBeGreaterThan(0);
      expect(refused.every((a) => a.kind === 'invalid')).toBe(true);
      expect(answers.filter((a) => a.kind === 'invalid').every((a) => a.answer.status === 401)).toBe(true);

      // One acceptance per event; every other request of that event answers 409 naming it.
      const acceptedByEvent = new Map(accepted.map((a) => [a.event, a.answer.body]));
      expect(acceptedByEvent.size).toBe(accepted.length);
      const events = new Set(answers.filter((a) => a.kind !== 'invalid').map((a) => a.event));
      expect(new Set(acceptedByEvent.keys())).toEqual(events);
      for (const d of duplicates)
        expect(d.answer.body).toMatchObject({
          delivery_id: acceptedByEvent.get(d.event)!.delivery_id,
          run_id: acceptedByEvent.get(d.event)!.triggered_runs[0].run_id,
        });

      // Each accepted request: its run, its delivery, both naming each other.
      const runs = await db('runs')
        .whereRaw("trigger_details_json->>'webhook_endpoint_id' = ?", [target.id])
        .select('id', 'trigger_details_json');
      const deliveries = await db('webhook_deliveries').where({ webhook_endpoint_id: target.id }).select();
      const runById = new Map((runs as { id: string; trigger_details_json: { delivery_id: string } }[]).map((r) => [r.id, r]));
      const deliveryById = new Map(deliveries.map((d: { id: string }) => [d.id, d]));
      for (const { event, answer } of accepted) {
        const runId = answer.body.triggered_runs[0].run_id;
        expect(runById.get(runId)?.trigger_details_json.delivery_id).toBe(answer.body.delivery_id);
        expect(deliveryById.get(answer.body.delivery_id)).toMatchObject({ response_status: 202, idempotency_key: event, run_ids: [runId] });
      }
      expect(runs).toHaveLength(accepted.length);
      expect(await count(db('runs'))).toBe(runsBefore + accepted.length);

      // The journal holds exactly the answers given.
      const byStatus = (status: number) => deliveries.filter((d: { response_status: number }) => d.response_status === status).length;
      expect([byStatus(202), byStatus(401), byStatus(409), deliveries.length]).toEqual([
        accepted.length,
        refused.length,
        duplicates.length,
        answers.length,
      ]);

      // Audit: webhook.triggered + run.started per acceptance, webhook.rejected per refusal, nothing else.
      const ofType = async (type: string) => count(db('audit_logs').where({ event_type: type }));
      expect([await ofType('webhook.triggered'), await ofType('run.started'), await ofType('webhook.rejected')]).toEqual([
        typesBefore[0]! + accepted.length,
        typesBefore[1]! + accepted.length,
        typesBefore[2]! + refused.length + duplicates.length,
      ]);
      expect(await count(db('audit_logs'))).toBe(auditsBefore + 2 * accepted.length + refused.length + duplicates.length);
    },
  );
});
