import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unstorableValue } from '../src/daemon/db/database-errors.js';
import { startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * A value that reaches a statement unchecked and that the database refuses (NUL in text and jsonb, a
 * time out of its range) is the client's error: 422 `validation_failed`, nothing stored, never a 500.
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

describe('times the database cannot take', () => {
  it.each([
    ['/runs?created_after=0000-01-01', 'created_after'],
    ['/runs?created_before=2020-01-01T00:00:00%2B16:00', 'created_before'],
    ['/audit-logs?since=0000-01-01T00:00:00Z', 'since'],
  ])('GET %s answers 422 at the bound', async (path, field) => {
    const answer = await call('GET', path);
    expect(answer.status).toBe(422);
    expect(answer.problem.code).toBe('validation_failed');
    expect(answer.problem.errors?.map((e) => e.path)).toEqual([field]);
  });
});

describe('unstorableValue', () => {
  it('tells NUL from other values the database refuses, through a cause, and nothing else', () => {
    expect(unstorableValue({ code: '22021' })).toBe('nul');
    expect(unstorableValue({ code: '22P05' })).toBe('nul');
    for (const code of ['22001', '22003', '22007', '22008', '22009', '22P02']) expect(unstorableValue({ code }), code).toBe('value');
    expect(unstorableValue(new Error('wrapped', { cause: { code: '22008' } }))).toBe('value');
    for (const other of [{ code: '23505' }, { code: '22012' }, { code: 'ECONNRESET' }, new Error('plain'), null, 'text']) {
      expect(unstorableValue(other)).toBeUndefined();
    }
  });
});
