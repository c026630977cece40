import { decide } from '../../../shared/policy/decision.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { recordDenial } from '../../authz/record-denial.js';
import { problems } from '../../../shared/api/problems.js';
import type { Step } from '../types.js';

/** The effective policy against the caller; a refusal is 403 and an `authz.denied` audit entry. */
export function authorize(audit: AuditWriter): Step {
  return function authorizeStep(ctx) {
    const route = ctx.state.mounted!.route;
    const policy = ctx.state.policy!;
    // A presigned URL's route checks the signature in its handler, in place of a caller to decide on.
    if (ctx.state.auth?.signedUrl) return;
    const principal = ctx.state.auth?.principal;
    const decision = decide(policy, ctx.state.scope ?? 'platform', {
      authenticated: principal !== undefined,
      realmRoles: principal?.realmRoles ?? [],
      org: ctx.state.org,
      orgRole: ctx.state.orgRole,
    });
    if (decision.allowed) return;
    const details = { policy, scope: ctx.state.scope, reason: decision.reason, required_roles: decision.requiredRoles };
    return recordDenial(audit, ctx.state.audit, route, details).then(() => {
      const required = decision.requiredRoles.at(-1) ?? policy;
      throw problems.forbidden(`Insufficient permissions. Required role: ${required}`, {
        action: route.action,
        policy,
        scope: ctx.state.scope ?? 'platform',
      });
    });
  };
}
