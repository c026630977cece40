import { problemType } from '../../../shared/api/problem-codes.js';
import { Problem, problems } from '../problem.js';
import type { Step } from '../types.js';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', '57P01', '57P03']);

/** The database is down or unreachable (as opposed to a query that is wrong): the client may retry. */
function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; name?: unknown } | null;
  return !!e && ((typeof e.code === 'string' && UNREACHABLE.has(e.code)) || e.name === 'KnexTimeoutError');
}

/**
 * The one place errors become responses: a Problem as RFC 9457 problem+json with its code, anything
 * else as a bare 500 whose cause stays in the log (found by the request id), never in the body.
 */
export function problemResponse(): Step {
  // `.catch` rather than an async try/catch: a rejection then crosses no async frames, each of which
  // would rethrow it (measured: most of the cost of a refused or unbuilt route's answer).
  return function problemResponseStep(ctx, next) {
    return next().catch((error: unknown) => {
      const problem = error instanceof Problem ? error : isDatabaseUnavailable(error) ? problems.databaseUnavailable() : problems.internal();
      // Problems are expected outcomes (the access log records them); only an unexpected error is logged with its cause.
      if (!(error instanceof Problem)) ctx.state.log.error({ err: error }, 'request failed');
      ctx.status = problem.status;
      for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
      ctx.type = 'application/problem+json';
      ctx.body = {
        type: problemType(problem.code),
        title: problem.title,
        status: problem.status,
        detail: problem.message,
        code: problem.code,
        request_id: ctx.state.requestId,
        ...problem.extensions,
      };
    });
  };
}
