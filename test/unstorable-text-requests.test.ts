import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * NUL that reaches a statement unchecked (the database refuses it in text and jsonb) is the client's
 * error: 422 `validation_failed` at the member holding it, nothing stored, never a 500.
 */
let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => w?.close());

const NUL = 'a\u0000b';

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(w.url + path, {
    method,
    headers: { authorization: w.as.root!, 'x-org-id': 'acme', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, problem: (await response.json()) as { code?: string; errors?: { path: string }[] } };
}

describe('NUL no schema checks', () => {
  it.each([
    ['/flows', { name: 'nul-flow', description: NUL }, 'flows', 'description'],
    ['/file-repositories', { name: 'nul-repo', kind: 'local', description: NUL }, 'file_repositories', 'description'],
    ['/orgs', { slug: 'nul-org', name: NUL }, 'organizations', 'name'],
  ])('POST %s answers 422 at the field and stores nothing', async (path, body, table, field) => {
    const before = await w.knex()(table).count({ n: '*' }).first();
    const answer = await call('POST', path, body);
    expect(answer.status).toBe(422);
    expect(answer.problem.code).toBe('validation_failed');
    expect(answer.problem.errors?.map((e) => e.path)).toEqual([field]);
    expect(await w.knex()(table).count({ n: '*' }).first()).toEqual(before);
  });

  it('in a query parameter answers 422 naming the parameter', async () => {
    const answer = await call('GET', `/flows?q=${encodeURIComponent(NUL)}`);
    expect(answer.status).toBe(422);
    expect(answer.problem.code).toBe('validation_failed');
    expect(
      answer.problem.errors?.map((e) => e.path),
      JSON.stringify(answer.problem),
    ).toEqual(['q']);
  });
});
