import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BARE,
  count,
  createEndpoint,
  createSecret,
  fire,
  seedFlow,
  startWorld,
  type Answer,
  type Endpoint,
  type World,
} from './helpers/webhooks-fixtures.js';

/**
 * The trigger in front of the database: a daemon with a small global backstop, the per-endpoint ingress
 * limit at 1× the endpoint's rate, and proxy headers trusted. A shed request must cost no query at all
 * and leave no delivery; the caller's address comes from the first `X-Forwarded-For` hop.
 */
const GLOBAL_PER_MINUTE = 20;
const KEY = 'ingress-signing-key';

let w: World;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await startWorld({
    SERVICE_WEBHOOK_GLOBAL_INGRESS_PER_MINUTE: String(GLOBAL_PER_MINUTE),
    SERVICE_WEBHOOK_INGRESS_LIMIT_MULTIPLIER: '1',
    SERVICE_TRUST_PROXY_HEADERS: 'true',
  });
  ids.flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'ingress', versions: [BARE] });
  ids.key = await createSecret(w, 'alice', 'hooks/ingress', KEY);
});
afterAll(async () => {
  await w?.close();
});

const endpoint = (fields: Record<string, unknown> = {}) => createEndpoint(w, { flow_id: ids.flow, secret_id: ids.key, ...fields });

// Periodic reloads of the permission overrides and IdP mappings run whatever the requests do.
const BACKGROUND = /permission_(action_)?overrides|org_idp_mappings/;

/** Sends one request and counts the database queries issued while it was in flight. */
async function withQueryCount(knex: Knex, send: () => Promise<Answer>): Promise<{ answer: Answer; queries: string[] }> {
  const queries: string[] = [];
  const listener = (query: { sql: string }) => {
    if (!BACKGROUND.test(query.sql)) queries.push(query.sql);
  };
  knex.on('query', listener);
  try {
    return { answer: await send(), queries };
  } finally {
    knex.off('query', listener);
  }
}

const journal = (target: Endpoint) => count(w.knex()('webhook_deliveries').where({ webhook_endpoint_id: target.id }));
const audited = (target: Endpoint) => count(w.knex()('audit_logs').where({ resource_id: target.id }));

describe('behind a trusted proxy', () => {
  it('takes the caller from the first X-Forwarded-For hop: IPv4, IPv6 and IPv4-mapped IPv6', async () => {
    const target = await endpoint({ allowed_source_ips: ['203.0.113.0/24', '2001:db8::/32'] });
    const cases: [string, number, string | null, string | null][] = [
      ['203.0.113.9', 202, '203.0.113.9', '203.0.113.0'],
      ['203.0.113.9, 10.0.0.1', 202, '203.0.113.9', '203.0.113.0'],
      ['2001:db8:0:1:2::7', 202, '2001:db8:0:1:2::7', '2001:db8:0:1::'],
      ['::ffff:203.0.113.10', 202, '203.0.113.10', '203.0.113.0'],
      ['198.51.100.1', 403, '198.51.100.1', '198.51.100.0'],
      ['10.0.0.1, 203.0.113.9', 403, '10.0.0.1', '10.0.0.0'],
    ];
    for (const [forwarded, status, journaled, masked] of cases) {
      const answer = await fire(w, target, KEY, {}, { 'x-forwarded-for': forwarded });
      expect(answer.status, forwarded).toBe(status);
      const row = await w.knex()('webhook_deliveries').where({ webhook_endpoint_id: target.id }).orderBy('created_at', 'desc').first();
      expect(row.source_ip, forwarded).toBe(journaled);
      const entry = await w
        .knex()('audit_logs')
        .where({ resource_id: target.id })
        .where('event_type', 'like', 'webhook.%')
        .orderBy('ts', 'desc')
        .first();
      expect(entry.details_json.source_ip_masked, forwarded).toBe(masked);
    }
  });
});

describe('shedding', () => {
  it('sheds a known endpoint over its ingress limit (rate × 1) with 429, no query, no delivery, no audit entry', async () => {
    const target = await endpoint({ rate_limit_per_minute: 2 });
    const first = await withQueryCount(w.knex(), () => fire(w, target, KEY, {}));
    expect(first.answer.status).toBe(202);
    expect(first.queries.length).toBeGreaterThan(0);
    expect((await fire(w, target, KEY, {})).status).toBe(202);

    const [deliveries, entries] = [await journal(target), await audited(target)];
    const shed = await withQueryCount(w.knex(), () => fire(w, target, KEY, {}));
    expect(shed.answer).toMatchObject({ status: 429, body: { code: 'rate_limited', limit: 'endpoint_ingress' } });
    expect(Number(shed.answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(shed.queries).toEqual([]);
    expect(await journal(target)).toBe(deliveries);
    expect(await audited(target)).toBe(entries);
  });

  it('sheds every trigger once the global backstop is spent: 429, no query, no delivery', async () => {
    const target = await endpoint({ rate_limit_per_minute: 10_000 });
    let shed: { answer: Answer; queries: string[] } | undefined;
    let accepted = 0;
    // The backstop refills at 20 a minute; at most a few more than its capacity get through first.
    for (let i = 0; i < GLOBAL_PER_MINUTE * 3 && !shed; i++) {
      const before = await journal(target);
      const attempt = await withQueryCount(w.knex(), () => fire(w, target, KEY, {}));
      if (attempt.answer.status === 202) {
        accepted++;
        continue;
      }
      shed = attempt;
      expect(await journal(target)).toBe(before);
    }
    expect(shed, 'the backstop never shed').toBeDefined();
    expect(accepted).toBeGreaterThan(0);
    expect(shed!.answer).toMatchObject({ status: 429, body: { code: 'rate_limited', limit: 'global' } });
    expect(Number(shed!.answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(shed!.queries).toEqual([]);
    expect(await journal(target)).toBe(accepted);

    // An unknown token is shed alike (before the shape check and the lookup), and management is not metered.
    const unknown = await withQueryCount(w.knex(), () => fire(w, { id: target.id, path_token: 'Z'.repeat(43) }, KEY, {}));
    expect(unknown.answer).toMatchObject({ status: 429, body: { limit: 'global' } });
    expect(unknown.queries).toEqual([]);
  });
});
