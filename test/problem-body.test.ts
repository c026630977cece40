import { describe, expect, it } from 'vitest';
import { problemType } from '../src/shared/api/problem-codes.js';
import { Problem } from '../src/shared/api/problem.js';
import { problems } from '../src/shared/api/problems.js';
import { problemBody } from '../src/daemon/http/middleware/problem-response.js';

/** The body as an object serialized: what `problemBody` must equal byte for byte. */
function objectForm(problem: Problem, requestId: string | undefined): string {
  const body: Record<string, unknown> = {
    type: problemType(problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    request_id: requestId,
  };
  for (const name in problem.extensions) body[name] = problem.extensions[name];
  return JSON.stringify(body);
}

describe('problemBody', () => {
  const cases: [string, Problem][] = [
    ['no extensions', problems.notFound()],
    ['an action', problems.notImplemented('run:view')],
    [
      'nested and quoted extensions',
      new Problem(409, 'conflict', 'He said "no"\n', { endpoints: [{ id: 'e1', name: 'ci "main"' }], count: 2, none: null }),
    ],
    ['an undefined extension', new Problem(400, 'validation_failed', 'bad', { gone: undefined, kept: 'yes' })],
    ['an integer-like extension key', new Problem(400, 'validation_failed', 'bad', { 7: 'seven', after: true })],
  ];
  for (const [name, problem] of cases) {
    it(`equals the object form: ${name}, answered twice with different ids`, () => {
      for (const id of ['req-1', 'req-"2"', undefined]) expect(problemBody(problem, id)).toBe(objectForm(problem, id));
    });
  }
});

describe('Problem', () => {
  it('refuses an extension named like a base member, which would replace it in the body (RFC 9457: status is the HTTP status)', () => {
    for (const name of ['type', 'title', 'status', 'detail', 'code', 'request_id']) {
      expect(() => new Problem(409, 'conflict', 'taken', { [name]: 'x' }), name).toThrow();
    }
    expect(new Problem(409, 'conflict', 'kept', { current_status: 'cancelled' }).extensions).toEqual({ current_status: 'cancelled' });
  });
});
