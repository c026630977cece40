import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { route } from '../src/daemon/http/route.js';
import type { DomainRoutes } from '../src/daemon/http/types.js';
import { CATALOGUE } from '../src/shared/catalogue/catalogue.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

const METHODS_WITH_BODY = new Set(['post', 'put', 'patch']);

/** Probe handlers in place of the platform-sync routes' own: one keeps its word, the others answer what they do not declare. */
function probes(): DomainRoutes {
  const schedule = z.object({ id: z.uuid(), name: z.string() });
  return {
    'GET /platform-sync/profiles/{profile_id}': route({
      params: z.object({ profile_id: z.uuid() }),
      query: z.object({ verbose: z.enum(['true', 'false']).optional() }).strict(),
      responses: { 200: { description: 'A schedule', schema: schedule } },
      handle(ctx, { params, query }) {
        ctx.body = { id: params.profile_id, name: query.verbose === 'true' ? 'nightly (verbose)' : 'nightly' };
      },
    }),
    'POST /platform-sync/profiles': route({
      body: z.object({ name: z.string().min(1) }).strict(),
      preValidation(ctx) {
        if (ctx.get('x-refuse') === 'yes') throw new Error('preValidation runs first');
      },
      responses: { 201: { description: 'Created', schema: schedule } },
      handle(ctx, { body }) {
        ctx.status = 201;
        ctx.body = { id: 'not-a-uuid', name: body.name };
      },
    }),
    'DELETE /platform-sync/profiles/{profile_id}': route({
      responses: { 204: { description: 'Deleted' } },
      handle(ctx) {
        ctx.status = 200;
        ctx.body = { deleted: true };
      },
    }),
  };
}

let checked: TestDaemon;
let unchecked: TestDaemon;
beforeAll(async () => {
  [checked, unchecked] = await Promise.all([
    startTestDaemon({ SERVICE_AUTH_DISABLED: 'true' }, { replaceRoutes: () => [probes()] }),
    startTestDaemon({ SERVICE_AUTH_DISABLED: 'true', SERVICE_CHECK_RESPONSES: 'false' }, { replaceRoutes: () => [probes()] }),
  ]);
});
afterAll(() => Promise.all([checked?.close(), unchecked?.close()]));

const ID = '0b7b0c3e-5f0e-4d7e-9a55-2f1d3f6f7a10';
const post = (daemon: TestDaemon, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${daemon.url}/platform-sync/profiles`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('a route declared with its schemas', () => {
  it('hands the handler its parsed params and query', async () => {
    const response = await fetch(`${checked.url}/platform-sync/profiles/${ID}?verbose=true`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: ID, name: 'nightly (verbose)' });
  });

  it('refuses params, query and body its schemas refuse with 422 validation_failed naming the field, before the handler', async () => {
    const badParam = await fetch(`${checked.url}/platform-sync/profiles/not-a-uuid`);
    expect(badParam.status).toBe(422);
    expect(((await badParam.json()) as { code: string; errors: { path: string }[] }).errors[0]!.path).toBe('profile_id');
    const badQuery = await fetch(`${checked.url}/platform-sync/profiles/${ID}?verbose=maybe`);
    expect(badQuery.status).toBe(422);
    expect(((await badQuery.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe('verbose');
    const badBody = await post(unchecked, { name: '' });
    expect(badBody.status).toBe(422);
    const body = (await badBody.json()) as { code: string; errors: { path: string }[] };
    expect(body.code).toBe('validation_failed');
    expect(body.errors[0]!.path).toBe('name');
  });

  it('runs preValidation before the body schema', async () => {
    const response = await post(unchecked, { name: '' }, { 'x-refuse': 'yes' });
    expect(response.status).toBe(500);
  });

  it('with SERVICE_CHECK_RESPONSES, answers 500 for a body its schema does not describe or a status it does not declare', async () => {
    expect((await post(checked, { name: 'nightly' })).status).toBe(500);
    expect((await fetch(`${checked.url}/platform-sync/profiles/${ID}`, { method: 'DELETE' })).status).toBe(500);
    expect((await post(unchecked, { name: 'nightly' })).status).toBe(201);
    expect((await fetch(`${unchecked.url}/platform-sync/profiles/${ID}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('documents params, query, body and answers in /openapi.json from the same schemas', async () => {
    const doc = (await (await fetch(`${checked.url}/openapi.json`)).json()) as OpenApi;
    const get = doc.paths['/platform-sync/profiles/{profile_id}']!.get!;
    expect(get.parameters).toEqual([
      { name: 'profile_id', in: 'path', required: true, schema: expect.objectContaining({ type: 'string', format: 'uuid' }) },
      { name: 'verbose', in: 'query', required: false, schema: { type: 'string', enum: ['true', 'false'] } },
    ]);
    const answer = get.responses['200']!.content!['application/json']!.schema as Record<string, unknown>;
    expect(answer).toMatchObject({ type: 'object', required: ['id', 'name'] });
    // The check is not strict, so the document does not close the answer either.
    expect(answer).not.toHaveProperty('additionalProperties');
    const create = doc.paths['/platform-sync/profiles']!.post!;
    expect(create.requestBody).toMatchObject({ required: true, content: { 'application/json': { schema: { type: 'object' } } } });
  });
});

interface Operation {
  'x-built': boolean;
  'x-body'?: string;
  parameters: unknown[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
}

describe('every built operation in /openapi.json', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startTestDaemon();
  });
  afterAll(() => daemon?.close());

  it('has a request schema where it takes a body and a schema for each 2xx answer with a body', async () => {
    const doc = (await (await fetch(`${daemon.url}/openapi.json`)).json()) as OpenApi;
    const missing: string[] = [];
    for (const route of CATALOGUE.routes) {
      const operation = doc.paths[route.path]![route.method.toLowerCase()]!;
      if (!operation['x-built']) continue;
      if (METHODS_WITH_BODY.has(route.method.toLowerCase()) && !operation.requestBody && operation['x-body'] !== 'none') {
        missing.push(`${route.key}: no request schema (declare body, or noBody: true)`);
      }
      const answers = Object.entries(operation.responses).filter(([status]) => /^2\d\d$/.test(status));
      if (answers.length === 0) missing.push(`${route.key}: no 2xx answer`);
      for (const [status, answer] of answers) {
        if (status === '204') continue;
        const schemas = Object.values(answer.content ?? {}).filter((content) => content.schema !== undefined);
        if (schemas.length === 0) missing.push(`${route.key}: ${status} without a schema`);
      }
    }
    expect(missing).toEqual([]);
  });
});
