import { CATALOGUE } from '../../../shared/catalogue/catalogue.js';
import { decide } from '../../../shared/policy/decision.js';
import { scopeOf } from '../../../shared/policy/org-scope.js';
import type { EffectivePolicies } from '../../authz/effective-policies.js';
import type { AppContext } from '../../http/types.js';

const FORCE_UNLOCK = CATALOGUE.routeByKey.get('POST /iac-states/{name}/force-unlock')!;

/**
 * Whether the caller may force another holder's lock: the effective policy of `iac_state:manage` (its
 * force-unlock route, overrides included) decided for this caller in this organization. Never a run
 * token, whatever the policy says.
 */
export function mayForceUnlock(ctx: AppContext, policies: EffectivePolicies): boolean {
  const auth = ctx.state.auth;
  if (!auth?.principal || auth.runToken) return false;
  const decision = decide(policies.policyFor(FORCE_UNLOCK), scopeOf(FORCE_UNLOCK), {
    authenticated: true,
    realmRoles: auth.principal.realmRoles,
    org: ctx.state.org,
    orgRole: ctx.state.orgRole,
  });
  return decision.allowed;
}
