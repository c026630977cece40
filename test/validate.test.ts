import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validate } from '../src/daemon/http/validate.js';
import { Problem } from '../src/shared/api/problem.js';

function refusal(run: () => unknown): Problem {
  try {
    run();
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('validate', () => {
  const query = z.strictObject({ limit: z.coerce.number().int().optional() });

  it('lists each issue with its path; an issue of the whole input is named by the request part it was found in', () => {
    const whole = refusal(() => validate(query, { nope: '1' }, 'query'));
    expect(whole).toMatchObject({ status: 422, code: 'validation_failed', extensions: { errors: [{ path: '' }] } });
    // The detail is for people: it says where to look, the query, not a body the request may not have.
    expect(whole.message).toContain('(query)');
    expect(whole.message).not.toContain('(body)');
    const member = refusal(() => validate(query, { limit: 'x' }, 'query'));
    expect(member.extensions).toMatchObject({ errors: [{ path: 'limit' }] });
    expect(refusal(() => validate(z.object({ a: z.string() }), 'text')).message).toContain('(body)');
  });
});
