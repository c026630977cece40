import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

const TOKEN = 'worker-secret-0123456789-abcdefghij';
let daemon: TestDaemon;
let optional: TestDaemon;
let unset: TestDaemon;

beforeAll(async () => {
  [daemon, optional, unset] = await Promise.all([
    startTestDaemon({ SERVICE_INTERNAL_API_TOKEN: TOKEN }),
    startTestDaemon({ SERVICE_INTERNAL_API_TOKEN_OPTIONAL: 'true' }),
    startTestDaemon({}),
  ]);
});
afterAll(() => Promise.all([daemon?.close(), optional?.close(), unset?.close()]));

/** A raw request, so headers can be sent twice (fetch would merge them). */
function rawGet(base: string, path: string, headers: [string, string][]): Promise<{ status: number; code?: string }> {
  return new Promise((resolve, reject) => {
    // With raw (array) headers Node adds no Host header of its own.
    const all = [['host', new URL(base).host], ...headers].flat();
    const req = request(base + path, { method: 'GET', headers: all as unknown as Record<string, string> }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, code: body ? (JSON.parse(body) as { code?: string }).code : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

const INTERNAL = '/internal/schedules/due';

describe('the worker token on internal routes', () => {
  it("lets the right token through (to the route, the scheduler's due list)", async () => {
    const response = await fetch(daemon.url + INTERNAL, { headers: { 'x-internal-token': TOKEN } });
    expect(response.status).toBe(200);
  });

  it.each([
    ['absent', []],
    ['empty', [['x-internal-token', '']]],
    ['wrong, same length', [['x-internal-token', TOKEN.replace(/.$/, 'X')]]],
    ['a prefix', [['x-internal-token', TOKEN.slice(0, 5)]]],
    ['very long', [['x-internal-token', 'x'.repeat(8000)]]],
  ] as [string, [string, string][]][])('refuses a token that is %s with 401, never 500', async (_, headers) => {
    const response = await rawGet(daemon.url, INTERNAL, headers);
    expect(response.status).toBe(401);
    expect(response.code).toBe('invalid_internal_token');
  });

  it.each([
    [
      'twice, the right token first',
      [
        ['x-internal-token', TOKEN],
        ['x-internal-token', 'garbage'],
      ],
    ],
    [
      'twice, the same right token',
      [
        ['x-internal-token', TOKEN],
        ['X-Internal-Token', TOKEN],
      ],
    ],
  ] as [string, [string, string][]][])('refuses a token sent %s with 400 ambiguous_credentials', async (_, headers) => {
    const response = await rawGet(daemon.url, INTERNAL, headers);
    expect(response.status).toBe(400);
    expect(response.code).toBe('ambiguous_credentials');
  });

  it('challenges every refusal with WWW-Authenticate', async () => {
    const response = await fetch(daemon.url + INTERNAL, { headers: { 'x-internal-token': 'wrong' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('X-Internal-Token realm="svc"');
  });

  it('does not accept a bearer token in place of the worker token', async () => {
    const response = await fetch(daemon.url + INTERNAL, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(401);
  });

  it('is not checked when no token is configured and it is declared optional', async () => {
    expect((await fetch(optional.url + INTERNAL)).status).toBe(200);
  });

  it('refuses every internal call when no token is configured and it is not optional', async () => {
    const response = await fetch(unset.url + INTERNAL, { headers: { 'x-internal-token': 'anything' } });
    expect(response.status).toBe(401);
  });
});
