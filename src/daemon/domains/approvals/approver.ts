import { CATALOGUE } from '../../../shared/catalogue/catalogue.js';
import { decide } from '../../../shared/policy/decision.js';
import type { EffectivePolicies } from '../../authz/effective-policies.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import type { AppContext } from '../../http/types.js';
import type { Approver } from './approval-decisions-service.js';

const DECISION_ROUTE = CATALOGUE.routeByKey.get('POST /approvals/{approval_id}/decision')!;

/**
 * The caller as an approver in the organization: its subject and its membership role there, looked up
 * for a platform admin too (who passes the policy without one, but an `approver_role` gate still asks
 * for the role).
 */
export async function approverOf(ctx: AppContext, access: OrgAccessRepo, orgId: string): Promise<Approver> {
  const principal = ctx.state.auth!.principal!;
  const role = ctx.state.orgRole ?? (await access.role(orgId, principal.sub)) ?? null;
  return { sub: principal.sub, username: principal.username || null, role };
}

/** Whether the caller passes the decision routes' effective policy in the active organization (the inbox asks). */
export function mayDecide(ctx: AppContext, policies: EffectivePolicies): boolean {
  const principal = ctx.state.auth?.principal;
  return decide(policies.policyFor(DECISION_ROUTE), 'org', {
    authenticated: principal !== undefined,
    realmRoles: principal?.realmRoles ?? [],
    ...(ctx.state.org ? { org: ctx.state.org } : {}),
    ...(ctx.state.orgRole ? { orgRole: ctx.state.orgRole } : {}),
  }).allowed;
}
