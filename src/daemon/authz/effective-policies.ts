import type { CatalogueRoute } from '../../shared/catalogue/types.js';
import type { Policy } from '../../shared/policy/policies.js';

/** The policy in effect for a route (the override store implements it: route override, action override, default). */
export interface EffectivePolicies {
  policyFor(route: CatalogueRoute): Policy;
}
