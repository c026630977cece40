import type { AuditWriter } from '../../audit/audit-writer.js';
import { recordDenial } from '../../authz/record-denial.js';
import { problem } from '../../../shared/api/problem.js';
import type { Step } from '../types.js';

/**
 * A route whose effective policy is `disabled` refuses everyone, before authentication: platform admins
 * and development mode included. The audit entry's actor is the caller's address.
 */
export function refuseDisabled(audit: AuditWriter): Step {
  return function refuseDisabledStep(ctx) {
    if (ctx.state.policy !== 'disabled') return;
    const route = ctx.state.mounted!.route;
    return recordDenial(audit, ctx.state.audit, route, { policy: 'disabled', reason: 'the route is disabled' }).then(() => {
      throw problem('route_disabled', 'This route is disabled.', { action: route.action, policy: 'disabled' });
    });
  };
}
