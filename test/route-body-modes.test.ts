import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readLimited } from '../src/daemon/http/middleware/parse-body.js';
import { route } from '../src/daemon/http/route.js';
import type { DomainRoutes } from '../src/daemon/http/types.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

/** Refuses `{}` and the bodies sent below: were dispatch to apply it, the handlers would never run. */
const documented = z.object({ name: z.string().min(1) }).strict();
const read = z.object({ bytes: z.number() });

/** Probe handlers in place of the platform-sync routes' own, each reading its body itself. */
function probes(): DomainRoutes {
  return {
    'POST /platform-sync/profiles': route({
      bodyMode: 'none',
      body: documented,
      responses: { 200: { description: 'What the handler read from the request', schema: read } },
      async handle(ctx) {
        ctx.body = { bytes: (await readLimited(ctx.req, 1024)).length };
      },
    }),
    'POST /platform-sync/profiles/{profile_id}/plan': route({
      bodyMode: 'raw',
      body: documented,
      responses: { 200: { description: 'What the handler was handed', schema: read } },
      handle(ctx) {
        ctx.body = { bytes: ctx.state.rawBody?.length ?? 0 };
      },
    }),
  };
}

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon({ SERVICE_AUTH_DISABLED: 'true' }, { replaceRoutes: () => [probes()] });
});
afterAll(() => daemon?.close());

const post = (path: string, body: string, contentType: string) =>
  fetch(`${daemon.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });

describe('a body the handler reads itself', () => {
  it("is left to the handler with bodyMode 'none': dispatch neither reads nor validates it", async () => {
    const response = await post('/platform-sync/profiles', 'not JSON at all', 'text/plain');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ bytes: 15 });
  });

  it("is handed to the handler as bytes with bodyMode 'raw', not validated", async () => {
    const response = await post('/platform-sync/profiles/nightly/plan', '{"other":1}', 'application/json');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ bytes: 11 });
  });

  it('is documented in /openapi.json as a required JSON body with its schema', async () => {
    const doc = (await (await fetch(`${daemon.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    const expected = {
      required: true,
      content: { 'application/json': { schema: expect.objectContaining({ type: 'object', required: ['name'] }) } },
    };
    expect(doc.paths['/platform-sync/profiles']!.post!.requestBody).toEqual(expected);
    expect(doc.paths['/platform-sync/profiles/{profile_id}/plan']!.post!.requestBody).toEqual(expected);
  });
});
