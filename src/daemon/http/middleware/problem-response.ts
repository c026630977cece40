import type { ServerResponse } from 'node:http';
import { problemType } from '../../../shared/api/problem-codes.js';
import { isDatabaseUnavailable, unstorableValue } from '../../db/database-errors.js';
import { Problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { clientWentAway, noteClientGone } from '../client-gone.js';
import type { AppContext, ProblemResponder } from '../types.js';
import { unstorableValueProblem } from '../unstorable-request.js';

const PROBLEM_JSON = 'application/problem+json';

/**
 * The one place errors become responses: a Problem as RFC 9457 problem+json with its code, anything
 * else as a bare 500 whose cause stays in the log (found by the request id), never in the body.
 */
export function problemResponse(bodies: ProblemBodies = new ProblemBodies()): ProblemResponder {
  return function answerProblem(ctx, error) {
    // Nobody reads an answer now: not a failure of ours, and no 5xx in the log or the access line.
    if (clientWentAway(ctx, error)) return noteClientGone(ctx, error);
    const problem = error instanceof Problem ? error : problemFor(ctx, error);
    ctx.status = problem.status;
    setProblemHeaders(ctx.res, problem);
    // Serialized here rather than by Koa, which would examine the content type again (a header read and a
    // regular expression) and set the length twice; the bytes are the same.
    ctx.body = bodies.body(problem, ctx.state.requestId);
  };
}

/**
 * What an error that is not a Problem answers. Problems are expected outcomes (the access log records
 * them); these are logged with their cause: a value the database refused (NUL, out of range) is the
 * client's error, answered as a field's check would, but a check is missing, so it is logged too.
 */
function problemFor(ctx: AppContext, error: unknown): Problem {
  if (isDatabaseUnavailable(error)) {
    ctx.state.log.error({ err: error }, 'request failed');
    return problems.databaseUnavailable();
  }
  const unstorable = unstorableValue(error);
  if (unstorable) {
    ctx.state.log.warn({ err: error }, 'the database refused a value that no schema checked');
    return unstorableValueProblem(ctx, unstorable);
  }
  ctx.state.log.error({ err: error }, 'request failed');
  return problems.internal();
}

/** The Problem's own headers and its content type (nothing once the headers are sent). */
export function setProblemHeaders(res: ServerResponse, problem: Problem): void {
  if (res.headersSent) return;
  for (const name in problem.headers) res.setHeader(name, problem.headers[name]!);
  // Set as a header: `ctx.type` would look the type up in the mime database on every answer.
  res.setHeader('Content-Type', PROBLEM_JSON);
}

type BodyParts = readonly [string, string] | null;

/**
 * The body's text around the request id. Null when an extension is an integer-like key (which an object
 * puts first): only the object form orders those the same way. (No extension takes a base member's name:
 * the Problem refuses one.)
 */
function partsOf(problem: Problem): BodyParts {
  const head = `${JSON.stringify({ type: problemType(problem.code), title: problem.title, status: problem.status, detail: problem.message, code: problem.code }).slice(0, -1)},"request_id":`;
  let tail = '';
  for (const name in problem.extensions) {
    if (/^\d+$/.test(name)) return null;
    const value = JSON.stringify(problem.extensions[name]);
    if (value !== undefined) tail += `,${JSON.stringify(name)}:${value}`;
  }
  return [head, `${tail}}`];
}

/** `{type, title, status, detail, code, request_id, …extensions}` as JSON, from the parts when there are some. */
function bodyOf(problem: Problem, requestId: string | undefined, parts: BodyParts | undefined): string {
  if (parts) return parts[0] + JSON.stringify(requestId) + parts[1];
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

/** `{type, title, status, detail, code, request_id, …extensions}` as JSON. */
export function problemBody(problem: Problem, requestId: string | undefined): string {
  return bodyOf(problem, requestId, requestId === undefined ? undefined : partsOf(problem));
}

/**
 * Problem bodies with the text around the request id made once per Problem: a Problem answered again and
 * again (a route's 501, a shed trigger's 429) costs one concatenation per answer. Kept by each answerer.
 */
export class ProblemBodies {
  readonly #parts = new WeakMap<Problem, BodyParts>();

  body(problem: Problem, requestId: string | undefined): string {
    if (requestId === undefined) return bodyOf(problem, requestId, undefined);
    let parts = this.#parts.get(problem);
    if (parts === undefined) this.#parts.set(problem, (parts = partsOf(problem)));
    return bodyOf(problem, requestId, parts);
  }
}
