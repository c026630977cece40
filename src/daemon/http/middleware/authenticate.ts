import type { Authenticator } from '../../auth/authenticator.js';
import type { Step } from '../types.js';

/** Establishes who the caller is by the route's policy, and records it in the audit context. */
export function authenticate(authenticator: Authenticator): Step {
  return async function authenticateStep(ctx, next) {
    const ticket = ctx.query.ticket;
    const result = await authenticator.authenticate({
      route: ctx.state.mounted!.route,
      policy: ctx.state.policy!,
      headers: ctx.headers,
      ticket: typeof ticket === 'string' ? ticket : undefined,
      audit: ctx.state.audit!,
    });
    ctx.state.auth = result;
    const audit = ctx.state.audit!;
    audit.authMethod = result.method;
    if (result.principal) {
      audit.subject = result.principal.sub;
      audit.username = result.principal.username;
    }
    if (result.pat) audit.orgId = result.pat.orgId;
    ctx.state.freshCredential = result.fresh === true;
    return next();
  };
}
