import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

let daemon: TestDaemon;
beforeAll(async () => {
  // Authentication on, no identity provider configured.
  daemon = await startTestDaemon({});
});
afterAll(() => daemon?.close());

describe('bearer authentication without credentials', () => {
  it('answers 401 unauthenticated with a Bearer challenge and no error attribute', async () => {
    const response = await fetch(`${daemon.url}/runs`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect(((await response.json()) as { code: string }).code).toBe('unauthenticated');
  });

  it('refuses HTTP Basic with 401 on an ordinary route', async () => {
    const response = await fetch(`${daemon.url}/runs`, { headers: { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` } });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('basic_auth_refused');
  });

  it('refuses a malformed Authorization header as an invalid token', async () => {
    const response = await fetch(`${daemon.url}/runs`, { headers: { authorization: 'Bearer' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('answers 503 auth_not_configured for a JWT when no identity provider is configured', async () => {
    const response = await fetch(`${daemon.url}/runs`, { headers: { authorization: 'Bearer aaa.bbb.ccc' } });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { code: string }).code).toBe('auth_not_configured');
  });

  it('leaves public routes open', async () => {
    expect((await fetch(`${daemon.url}/health`)).status).toBe(200);
    expect((await fetch(`${daemon.url}/auth/config`)).status).toBe(200);
  });

  it('requires a ticket or a bearer token on the stream routes', async () => {
    expect((await fetch(`${daemon.url}/runs/r1/monitors/stream`)).status).toBe(401);
    const bad = await fetch(`${daemon.url}/runs/r1/monitors/stream?ticket=nope`);
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_ticket');
  });
});
