import type { AuditContext } from '../../audit/audit-context.js';
import type { Step } from '../types.js';
import { requestHeader } from '../request-header.js';

/**
 * Makes the request's audit context; it lives in the request state and ends with the request. Later
 * steps (authentication, organization) fill in the actor and the active organization on the same object.
 */
export function auditContext(): Step {
  return function auditContextStep(ctx) {
    const route = ctx.state.mounted!.route;
    const context: AuditContext = {
      requestId: ctx.state.requestId,
      route: route.key,
      clientIp: ctx.state.clientIp,
      userAgent: requestHeader(ctx, 'user-agent') || undefined,
    };
    ctx.state.audit = context;
  };
}
