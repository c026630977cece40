import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../src/shared/catalogue/catalogue.js';
import { answerEarly } from '../src/daemon/http/early-answer.js';
import { Problem } from '../src/shared/api/problem.js';
import { createLogger } from '../src/daemon/logging/logger.js';

/** An answer given before Koa: the headers, body and access-log line the request path gives a Problem. */
const ROUTE = CATALOGUE.routeByKey.get('POST /hooks/{path_token}')!;
const lines: Record<string, unknown>[] = [];
const log = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
const problem = new Problem(429, 'rate_limited', 'Slow down.', { limit: 'global' }, { 'Retry-After': '7' });
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => answerEarly(req, res, ROUTE, problem, { log, trustProxyHeaders: true }));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe('answerEarly', () => {
  it('answers the problem with the request id, security headers, its own headers and problem+json', async () => {
    const response = await fetch(`${base}/hooks/abc?x=1`, { method: 'POST', headers: { 'x-request-id': 'early-answer-1' }, body: '{}' });
    expect(response.status).toBe(429);
    expect([...response.headers.keys()].filter((name) => !['date', 'connection', 'keep-alive'].includes(name))).toEqual([
      'cache-control',
      'content-length',
      'content-type',
      'retry-after',
      'x-content-type-options',
      'x-request-id',
    ]);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toEqual({
      type: 'urn:svc:problem:rate_limited',
      title: 'Too Many Requests',
      status: 429,
      detail: 'Slow down.',
      code: 'rate_limited',
      request_id: 'early-answer-1',
      limit: 'global',
    });
  });

  it('writes the access-log line the request path writes, without the query string, with the trusted client address', async () => {
    lines.length = 0;
    await fetch(`${base}/hooks/abc?ticket=secret`, {
      method: 'POST',
      headers: { 'x-request-id': 'early-answer-2', 'x-forwarded-for': '203.0.113.7' },
      body: '{}',
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request',
      request_id: 'early-answer-2',
      method: 'POST',
      path: '/hooks/abc',
      route: '/hooks/{path_token}',
      action: ROUTE.action,
      status: 429,
      client_ip: '203.0.113.7',
    });
    expect(typeof lines[0]!.duration_ms).toBe('number');
  });
});
