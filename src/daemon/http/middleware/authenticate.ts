import type { AuthOutcome, Authenticator } from '../../auth/authenticator.js';
import type { AppContext, Step } from '../types.js';

/** Establishes who the caller is by the route's policy, and records it in the audit context. */
export function authenticate(authenticator: Authenticator): Step {
  return function authenticateStep(ctx) {
    // Koa parses the query string on first use: most requests have none to parse.
    const hasQuery = ctx.req.url?.includes('?') === true;
    const ticket = hasQuery ? ctx.query.ticket : undefined;
    const signature = hasQuery ? ctx.query.signature : undefined;
    const outcome = authenticator.authenticate({
      route: ctx.state.mounted!.route,
      policy: ctx.state.policy!,
      headers: ctx.headers,
      rawHeaders: ctx.req.rawHeaders,
      ticket: typeof ticket === 'string' ? ticket : undefined,
      signature: typeof signature === 'string' ? signature : undefined,
      audit: ctx.state.audit!,
    });
    if (outcome instanceof Promise) return outcome.then((result) => record(ctx, result));
    record(ctx, outcome);
  };
}

function record(ctx: AppContext, result: AuthOutcome): void {
  const audit = ctx.state.audit!;
  ctx.state.auth = result;
  audit.authMethod = result.method;
  if (result.principal) {
    audit.subject = result.principal.sub;
    audit.username = result.principal.username;
  }
  if (result.pat) audit.orgId = result.pat.orgId;
  if (result.runToken) {
    audit.orgId = result.runToken.orgId;
    audit.runToken = { tokenId: result.runToken.tokenId, runId: result.runToken.runId, stepId: result.runToken.stepId };
  }
  ctx.state.freshCredential = result.fresh === true;
}
