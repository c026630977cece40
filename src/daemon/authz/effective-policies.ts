import type { CatalogueRoute } from '../../shared/catalogue/types.js';
import type { Policy } from '../../shared/policy/policies.js';

/** The policy in effect for a route. Overrides (route, then action) are layered on by the authorization issue. */
export interface EffectivePolicies {
  policyFor(route: CatalogueRoute): Policy;
}

/** Registry defaults only. */
export const DEFAULT_POLICIES: EffectivePolicies = {
  policyFor: (route) => route.defaultPolicy,
};
