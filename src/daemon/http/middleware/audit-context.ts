import type { AuditContextStore } from '../../audit/audit-context.js';
import type { Step } from '../types.js';

/**
 * Binds the request's audit context for the rest of the request; it ends with the request. Later steps
 * (authentication, organization) fill in the actor and the active organization on the same object.
 */
export function auditContext(store: AuditContextStore): Step {
  return function auditContextStep(ctx, next) {
    const route = ctx.state.mounted!.route;
    const context = {
      requestId: ctx.state.requestId,
      route: `${route.method} ${route.path}`,
      clientIp: ctx.state.clientIp,
      userAgent: ctx.get('user-agent') || undefined,
      ...(route.defaultPolicy === 'public' ? { authMethod: 'public' as const } : {}),
    };
    ctx.state.audit = context;
    return store.run(context, next);
  };
}
