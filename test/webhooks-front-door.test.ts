import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BARE,
  call,
  count,
  createEndpoint,
  createSecret,
  fire,
  hook,
  seedFlow,
  signed,
  startWorld,
  type Answer,
  type Endpoint,
  type World,
} from './helpers/webhooks-fixtures.js';

/**
 * The global backstop at the front door (before Koa): a daemon whose backstop holds one token a minute,
 * so once it is spent every later trigger in this file is shed, deterministically. What the front door
 * answers must be what the request path answers for the same refusal, and what it leaves to the request
 * path must be answered there as before.
 */
const KEY = 'front-door-signing-key';
const BODY = JSON.stringify({ params: {} });
const ROUTE = { method: 'POST', path: '/hooks/{path_token}' };

let w: World;
let target: Endpoint;

beforeAll(async () => {
  w = await startWorld({ SERVICE_WEBHOOK_GLOBAL_INGRESS_PER_MINUTE: '1' });
  const flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'front-door', versions: [BARE] });
  target = await createEndpoint(w, { flow_id: flow, secret_id: await createSecret(w, 'alice', 'hooks/front-door', KEY) });
});
afterAll(async () => {
  await w?.close();
});

/** The response's header names in order, less those Node adds to every answer. */
const headerNames = (answer: Answer) => [...answer.headers.keys()].filter((name) => !['date', 'connection', 'keep-alive'].includes(name));
const withoutId = (body: Record<string, unknown>) => ({ ...body, request_id: undefined });

describe('the global backstop at the front door', () => {
  it('charges an admitted trigger once: the one token a minute lets the first trigger through', async () => {
    expect((await fire(w, target, KEY, {})).status).toBe(202);
  });

  it('answers a shed trigger as the request path does (which judges a percent-encoded token), with no delivery', async () => {
    const deliveries = await count(w.knex()('webhook_deliveries'));
    const encoded = `%${target.path_token.charCodeAt(0).toString(16).toUpperCase()}${target.path_token.slice(1)}`;
    const front = await hook(w, target.path_token, BODY, { ...signed(KEY, BODY), 'x-request-id': 'front-door-0001' });
    const path = await hook(w, encoded, BODY, { ...signed(KEY, BODY), 'x-request-id': 'request-path-0001' });
    for (const answer of [front, path]) {
      expect(answer.status).toBe(429);
      expect(answer.body).toMatchObject({ code: 'rate_limited', limit: 'global', status: 429 });
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(front.headers.get('x-request-id')).toBe('front-door-0001');
    expect(front.body.request_id).toBe('front-door-0001');
    expect(path.headers.get('x-request-id')).toBe('request-path-0001');
    expect(headerNames(front)).toEqual(headerNames(path));
    expect(front.headers.get('cache-control')).toBe(path.headers.get('cache-control'));
    expect(front.headers.get('x-content-type-options')).toBe(path.headers.get('x-content-type-options'));
    expect(withoutId(front.body)).toEqual(withoutId(path.body));
    expect(await count(w.knex()('webhook_deliveries'))).toBe(deliveries);
  });

  it('makes a request id when the caller sends none or a malformed one', async () => {
    for (const given of [undefined, 'bad id with spaces']) {
      const answer = await hook(w, target.path_token, BODY, { ...signed(KEY, BODY), ...(given ? { 'x-request-id': given } : {}) });
      expect(answer.status).toBe(429);
      expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.body.request_id).toBe(answer.headers.get('x-request-id'));
    }
  });

  it('relies on the route staying public: no override can make it otherwise (so the request path would refuse nothing before the trigger)', async () => {
    const route = await call(w, 'root', 'PUT', '/settings/permissions/override', { ...ROUTE, policy: 'disabled' });
    expect(route.status).toBe(422);
    expect(route.body).toMatchObject({ code: 'override_rule_violation', rule: 'structural_policy' });
    const action = await call(w, 'root', 'PUT', '/settings/permissions/actions/override', {
      action: 'webhook:receive',
      policy: 'disabled',
    });
    expect(action.status).toBe(422);
    expect(action.body.code).toBe('override_rule_violation');
    expect((await hook(w, target.path_token, BODY, signed(KEY, BODY))).status).toBe(429);
  });

  it('leaves other methods and paths alone', async () => {
    expect((await fetch(`${w.url}/hooks/${target.path_token}`)).status).toBe(405);
    expect((await hook(w, `${target.path_token}/extra`, BODY, signed(KEY, BODY))).status).toBe(404);
    expect((await fetch(`${w.url}/health`)).status).toBe(200);
  });
});
