import { problemType } from '../../../shared/api/problem-codes.js';
import { Problem, problems } from '../problem.js';
import { setResponseHeader } from '../response-header.js';
import type { ProblemResponder } from '../types.js';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', '57P01', '57P03']);
const PROBLEM_JSON = 'application/problem+json';

/** The database is down or unreachable (as opposed to a query that is wrong): the client may retry. */
function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; name?: unknown } | null;
  return !!e && ((typeof e.code === 'string' && UNREACHABLE.has(e.code)) || e.name === 'KnexTimeoutError');
}

/**
 * The one place errors become responses: a Problem as RFC 9457 problem+json with its code, anything
 * else as a bare 500 whose cause stays in the log (found by the request id), never in the body.
 */
export function problemResponse(): ProblemResponder {
  return function answerProblem(ctx, error) {
    const problem = error instanceof Problem ? error : isDatabaseUnavailable(error) ? problems.databaseUnavailable() : problems.internal();
    // Problems are expected outcomes (the access log records them); only an unexpected error is logged with its cause.
    if (!(error instanceof Problem)) ctx.state.log.error({ err: error }, 'request failed');
    ctx.status = problem.status;
    for (const name in problem.headers) setResponseHeader(ctx, name, problem.headers[name]!);
    // Set as a header: `ctx.type` would look the type up in the mime database on every answer.
    setResponseHeader(ctx, 'Content-Type', PROBLEM_JSON);
    const body: Record<string, unknown> = {
      type: problemType(problem.code),
      title: problem.title,
      status: problem.status,
      detail: problem.message,
      code: problem.code,
      request_id: ctx.state.requestId,
    };
    for (const name in problem.extensions) body[name] = problem.extensions[name];
    // Serialized here rather than by Koa, which would examine the content type again (a header read and a
    // regular expression) and set the length twice; the bytes are the same.
    ctx.body = JSON.stringify(body);
  };
}
