import type { AppContext } from './types.js';

/** nginx's "client closed request": what the access log shows for a request its client left unanswered. */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * The request failed because its client left, not because of anything of ours: the connection is gone
 * and the error is the request stream's own (Node's `aborted` on a body cut short), or the HTTP parser
 * met the end of the connection inside a request (a chunked body cut short: only a client does that).
 * A refusal that stops reading the body itself (413 mid-stream) keeps its connection, and a failure of
 * the store or the database is another error: neither is taken for one.
 */
export function clientWentAway(ctx: AppContext | undefined, error: unknown): boolean {
  if (!ctx || typeof error !== 'object' || error === null) return false;
  if ((error as { code?: unknown }).code === 'HPE_INVALID_EOF_STATE') return true;
  return error === ctx.req.errored && ctx.res.destroyed;
}

/**
 * Records a client gone once, however many of its symptoms arrive (the parser's and the body's): an info
 * line, and 499 for the access line. Nothing is answered; nobody would read it.
 */
export function noteClientGone(ctx: AppContext, error: unknown): void {
  if (ctx.status === CLIENT_CLOSED_REQUEST) return;
  ctx.status = CLIENT_CLOSED_REQUEST;
  ctx.state.log.info({ reason: (error as Error).message }, 'client went away before the answer');
}
