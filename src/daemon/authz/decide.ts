import type { Principal } from '../../shared/auth/principal.js';
import { ROLE_GRANTS, rolesSatisfy } from '../../shared/policy/grants.js';
import type { Policy } from '../../shared/policy/policies.js';

export type Decision =
  | { readonly allowed: true; readonly reason: string }
  | { readonly allowed: false; readonly reason: string; readonly requiredRoles: readonly string[] };

/**
 * The platform-scope decision: the effective policy against the caller's realm roles. Structural
 * policies were settled by authentication; `disabled` refuses everyone.
 */
export function decidePlatform(policy: Policy, principal: Principal | undefined): Decision {
  switch (policy) {
    case 'public':
    case 'internal':
    case 'custom':
      return { allowed: true, reason: `${policy} route: authentication decides` };
    case 'disabled':
      return { allowed: false, reason: 'the route is disabled', requiredRoles: [] };
    case 'authenticated':
      return principal ? { allowed: true, reason: 'any authenticated caller' } : { allowed: false, reason: 'not authenticated', requiredRoles: [] };
    case 'org_member':
    case 'org_admin':
      if (principal?.realmRoles.includes('admin')) return { allowed: true, reason: 'platform admin' };
      return { allowed: false, reason: `requires ${policy === 'org_admin' ? 'admin ' : ''}membership in the organization`, requiredRoles: policy === 'org_admin' ? ['admin'] : [] };
    default: {
      const roles = principal?.realmRoles ?? [];
      const granted = roles.find((role) => rolesSatisfy(policy, [role]));
      if (granted) return { allowed: true, reason: `realm role ${granted}` };
      return { allowed: false, reason: `requires one of the roles ${ROLE_GRANTS[policy]!.join(', ')}`, requiredRoles: ROLE_GRANTS[policy]! };
    }
  }
}
