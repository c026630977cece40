import { describe, expect, it } from 'vitest';
import { Problem } from '../src/shared/api/problem.js';
import { problems } from '../src/shared/api/problems.js';
import { ProblemBodies, problemBody } from '../src/daemon/http/middleware/problem-response.js';

/** An answerer's bodies: the text around the request id kept per Problem, the bytes those of `problemBody`. */
describe('ProblemBodies', () => {
  it('answers each Problem as problemBody does, again and again, with any request id', () => {
    const bodies = new ProblemBodies();
    const cases = [
      problems.notImplemented('run:view'),
      new Problem(409, 'conflict', 'He said "no"\n', { endpoints: [{ id: 'e1' }], none: null }),
      new Problem(400, 'validation_failed', 'bad', { extra: 'kept', 7: 'seven' }),
    ];
    for (let round = 0; round < 2; round += 1) {
      for (const problem of cases) {
        for (const id of ['req-1', 'req-"2"', undefined]) expect(bodies.body(problem, id)).toBe(problemBody(problem, id));
      }
    }
  });
});
