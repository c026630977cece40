import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../src/shared/catalogue/catalogue.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

let daemon: TestDaemon;

beforeAll(async () => {
  // Development mode: the mock admin passes every policy, so each route reaches its handler.
  daemon = await startTestDaemon({ SERVICE_MAX_BODY_BYTES: '1024', SERVICE_AUTH_DISABLED: 'true' });
});
afterAll(() => daemon?.close());

async function openapi(url: string): Promise<{ paths: Record<string, Record<string, { 'x-built': boolean }>> }> {
  return (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { 'x-built': boolean }>> };
}

describe('the HTTP surface of the foundation', () => {
  it('builds every catalogue route (x-built in /openapi.json)', async () => {
    const doc = await openapi(daemon.url);
    const unbuilt = CATALOGUE.routes.filter((r) => doc.paths[r.path]![r.method.toLowerCase()]!['x-built'] === false);
    expect(unbuilt.map((r) => r.key)).toEqual([]);
  });

  it('answers 501 not_implemented, naming the action, on a catalogue route that has no handler', async () => {
    // Every route is built now: a daemon whose dashboard route has lost its handler shows what an unbuilt one does.
    const partial = await startTestDaemon(
      { SERVICE_AUTH_DISABLED: 'true' },
      { replaceRoutes: () => [{ 'GET /dashboard/stats': undefined }] },
    );
    try {
      expect((await openapi(partial.url)).paths['/dashboard/stats']!.get!['x-built']).toBe(false);
      const response = await fetch(`${partial.url}/dashboard/stats`, { headers: { 'x-org-id': 'default' } });
      expect(response.status).toBe(501);
      expect(await response.json()).toMatchObject({ code: 'not_implemented', action: 'dashboard:view' });
    } finally {
      await partial.close();
    }
  });

  it('answers problem+json with a stable code, status and the request id', async () => {
    const response = await fetch(`${daemon.url}/no/such/path`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 404, code: 'not_found', type: 'urn:svc:problem:not_found' });
    expect(body.request_id).toBe(response.headers.get('x-request-id'));
  });

  it('answers 405 with Allow for a known path and a wrong method', async () => {
    const response = await fetch(`${daemon.url}/health`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(((await response.json()) as { code: string }).code).toBe('method_not_allowed');
  });

  it('answers 413 for a body over the limit, declared or streamed', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(2000) });
    const declared = await fetch(`${daemon.url}/orgs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { code: string }).code).toBe('payload_too_large');

    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${daemon.url}/orgs`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.write(big.slice(0, 1000));
      req.end(big.slice(1000));
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).code).toBe('payload_too_large');
  });

  it('answers 400 malformed_json for a body that is not JSON', async () => {
    const response = await fetch(`${daemon.url}/orgs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('malformed_json');
  });

  it('answers 415 for a body that is not declared as JSON', async () => {
    const response = await fetch(`${daemon.url}/orgs`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { code: string }).code).toBe('unsupported_media_type');
  });

  it('answers 400 invalid_path for a malformed percent-encoding', async () => {
    const response = await fetch(`${daemon.url}/runs/%E0%A4%A`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('invalid_path');
  });

  it('accepts a well-formed X-Request-Id and replaces a malformed one', async () => {
    const kept = await fetch(`${daemon.url}/health`, { headers: { 'x-request-id': 'trace-0123456789' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-0123456789');
    const replaced = await fetch(`${daemon.url}/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves HEAD from the GET route and OPTIONS with the allowed methods', async () => {
    const head = await fetch(`${daemon.url}/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const options = await fetch(`${daemon.url}/runs`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
  });

  it('reports alive on /health and ready on /ready while the database answers', async () => {
    const health = await fetch(`${daemon.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${daemon.url}/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { status: string }).status).toBe('ready');
  });
});
