import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_PRINCIPAL } from '../src/shared/auth/principal.js';
import { BARE, createEndpoint, createSecret, deliveriesOf, seedFlow, signed, startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * A credential header sent twice is ambiguous, whatever the first one holds: Node keeps only the first
 * `Authorization`, so without the check a valid token followed by garbage authenticated. And every 401,
 * of every credential kind, says in `WWW-Authenticate` what the route takes (RFC 9110 15.5.2).
 */
let w: World;
let pat: string;
let hmacEndpoint: { path_token: string; id: string };
let bearerEndpoint: { path_token: string; id: string };
const KEY = 'duplicate-header-signing-key';
const TOKEN = 'duplicate-header-bearer-token-0123';

beforeAll(async () => {
  w = await startWorld({ SERVICE_INTERNAL_API_TOKEN: 'worker-secret-0123456789-abcdefghij' });
  pat = (await w.daemon.services.pats.create({ name: 'dup', username: 'carol', org: 'acme', expiresAt: null }, DEV_PRINCIPAL)).token;
  const flow = await seedFlow(w.knex(), w.ids.acme!, { name: 'bare', versions: [BARE] });
  hmacEndpoint = await createEndpoint(w, { flow_id: flow, secret_id: await createSecret(w, 'alice', 'hooks/key', KEY) });
  bearerEndpoint = await createEndpoint(w, {
    flow_id: flow,
    auth_mode: 'bearer',
    secret_id: await createSecret(w, 'alice', 'hooks/token', TOKEN),
  });
});
afterAll(() => w?.close());

interface RawAnswer {
  status: number;
  code?: string;
  challenge?: string;
}

/** A raw request, so a header can be sent twice (fetch would merge the two). */
function raw(method: string, path: string, headers: [string, string][], body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const all = [
      ['host', new URL(w.url).host],
      ...headers,
      ...(body === undefined
        ? []
        : [
            ['content-type', 'application/json'],
            ['content-length', String(Buffer.byteLength(body))],
          ]),
    ].flat();
    const req = request(w.url + path, { method, headers: all as unknown as Record<string, string> }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          code: text ? (JSON.parse(text) as { code?: string }).code : undefined,
          challenge: res.headers['www-authenticate'],
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a credential header sent twice', () => {
  it.each([
    ['a valid JWT, then garbage', () => [w.as.carol!, 'Bearer garbage']],
    ['garbage, then a valid JWT', () => ['Bearer garbage', w.as.carol!]],
    ["a valid personal access token, then another user's JWT", () => [`Bearer ${pat}`, w.as.alice!]],
    ['the same valid JWT twice', () => [w.as.carol!, w.as.carol!]],
  ] as [string, () => [string, string]][])('is refused on a bearer route: %s', async (_, pair) => {
    const [first, second] = pair();
    const answer = await raw('GET', '/auth/me', [
      ['authorization', first],
      ['Authorization', second],
      ['x-org-id', 'acme'],
    ]);
    expect(answer).toMatchObject({ status: 400, code: 'ambiguous_credentials' });
  });

  it('is refused on the webhook trigger of a bearer endpoint, and journaled', async () => {
    const before = (await deliveriesOf(w, bearerEndpoint.id)).length;
    const answer = await raw(
      'POST',
      `/hooks/${bearerEndpoint.path_token}`,
      [
        ['authorization', `Bearer ${TOKEN}`],
        ['authorization', 'Bearer garbage'],
      ],
      '{}',
    );
    expect(answer).toMatchObject({ status: 400, code: 'ambiguous_credentials' });
    const journal = await deliveriesOf(w, bearerEndpoint.id);
    expect(journal).toHaveLength(before + 1);
    expect(journal.at(-1)).toMatchObject({ response_status: 400, signature_valid: false });
    expect(await w.knex()('runs').whereRaw("trigger_details_json->>'webhook_endpoint_id' = ?", [bearerEndpoint.id]).select('id')).toEqual(
      [],
    );
  });

  it('is refused on the webhook trigger of an HMAC endpoint', async () => {
    const headers = signed(KEY, '{}');
    const answer = await raw(
      'POST',
      `/hooks/${hmacEndpoint.path_token}`,
      [
        ['x-service-timestamp', headers['x-service-timestamp']!],
        ['x-service-signature', headers['x-service-signature']!],
        ['x-service-signature', '00'],
      ],
      '{}',
    );
    expect(answer).toMatchObject({ status: 400, code: 'ambiguous_credentials' });
  });

  it('is not mistaken for one: a single Authorization beside other headers passes', async () => {
    expect(
      (
        await raw('GET', '/auth/me', [
          ['authorization', w.as.carol!],
          ['x-org-id', 'acme'],
        ])
      ).status,
    ).toBe(200);
  });
});

describe('every 401 carries a challenge', () => {
  it.each([
    ['no credential on a bearer route', 'GET', '/auth/me', [], 'Bearer realm="svc"'],
    ['a malformed bearer token', 'GET', '/auth/me', [['authorization', 'Bearer not.a.jwt']], 'Bearer realm="svc", error="invalid_token"'],
    [
      'an unknown personal access token',
      'GET',
      '/auth/me',
      [['authorization', 'Bearer svc_pat_000000000000000000000000000000000000000000']],
      'Bearer realm="svc"',
    ],
    ['HTTP Basic on a bearer route', 'GET', '/auth/me', [['authorization', 'Basic dTpw']], 'Bearer realm="svc"'],
    ['a missing worker token', 'GET', '/internal/schedules/due', [], 'X-Internal-Token realm="svc"'],
    ['a wrong worker token', 'GET', '/internal/schedules/due', [['x-internal-token', 'wrong']], 'X-Internal-Token realm="svc"'],
    ['an unknown ticket on validate', 'GET', '/auth/bff/validate?ticket=unknown', [], 'Ticket realm="svc"'],
    ['an unknown ticket on a stream route', 'GET', '/runs/r1/monitors/stream?ticket=unknown', [], 'Ticket realm="svc"'],
  ] as [string, string, string, [string, string][], string][])('%s', async (_, method, path, headers, scheme) => {
    const answer = await raw(method, path, headers);
    expect(answer.status).toBe(401);
    expect(answer.challenge).toContain(scheme);
  });

  it("a webhook refused for its credential names the endpoint's kind", async () => {
    const hmac = await raw('POST', `/hooks/${hmacEndpoint.path_token}`, [], '{}');
    expect(hmac).toMatchObject({ status: 401, code: 'webhook_auth_failed', challenge: 'X-Service-Signature realm="webhook"' });
    const bearer = await raw('POST', `/hooks/${bearerEndpoint.path_token}`, [['authorization', 'Bearer wrong']], '{}');
    expect(bearer).toMatchObject({ status: 401, code: 'webhook_auth_failed', challenge: 'Bearer realm="webhook"' });
  });
});
