import type { Catalogue } from '../catalogue/catalogue.js';
import type { CatalogueRoute } from '../catalogue/types.js';
import { isPolicy, STRUCTURAL_POLICIES, type Policy } from './policies.js';

/** The two override layers, as plain maps: action name -> policy, and `METHOD /pattern` -> policy. */
export interface Overrides {
  readonly actions: ReadonlyMap<string, Policy>;
  readonly routes: ReadonlyMap<string, Policy>;
}

export const NO_OVERRIDES: Overrides = { actions: new Map(), routes: new Map() };

export type PolicySource = 'route_override' | 'action_override' | 'default';

export interface EffectivePolicy {
  readonly policy: Policy;
  readonly source: PolicySource;
}

/**
 * Rule 1: route override, else action override, else the action's default. Route overrides are keyed
 * by the route's own pattern (rule 2: every route is listed by its own path), so the most specific
 * match is the exact one and the lookup is two map reads.
 */
export function effectivePolicy(route: CatalogueRoute, overrides: Overrides): EffectivePolicy {
  const byRoute = overrides.routes.get(route.key);
  if (byRoute) return { policy: byRoute, source: 'route_override' };
  const byAction = overrides.actions.get(route.action);
  if (byAction) return { policy: byAction, source: 'action_override' };
  return { policy: route.defaultPolicy, source: 'default' };
}

/** The rule an override breaks; each is a stable name the API reports with its 422. */
export type OverrideRule =
  | 'unknown_action'
  | 'unknown_route'
  | 'unknown_policy'
  | 'structural_policy'
  | 'permission_manage_pinned'
  | 'org_policy_needs_org_ref'
  | 'auth_me_never_disabled';

export class OverrideRuleViolation extends Error {
  constructor(
    readonly rule: OverrideRule,
    message: string,
  ) {
    super(message);
    this.name = 'OverrideRuleViolation';
  }
}

const PINNED_ACTION = 'permission:manage';
const NEVER_DISABLED_ACTION = 'auth:me';

/** Rules 3-7 for a policy applied to a set of routes (one route, or every route of an action). */
function checkRoutes(routes: readonly CatalogueRoute[], policy: string, subject: string): Policy {
  if (!isPolicy(policy)) throw new OverrideRuleViolation('unknown_policy', `"${policy}" is not a policy`);
  if (STRUCTURAL_POLICIES.has(policy)) {
    throw new OverrideRuleViolation('structural_policy', `${policy} describes how a route authenticates and cannot be assigned`);
  }
  for (const route of routes) {
    if (route.action === PINNED_ACTION)
      throw new OverrideRuleViolation('permission_manage_pinned', `${subject}: permission:manage is pinned`);
    if (STRUCTURAL_POLICIES.has(route.defaultPolicy)) {
      throw new OverrideRuleViolation('structural_policy', `${subject}: ${route.key} is ${route.defaultPolicy} and cannot be overridden`);
    }
    if ((policy === 'org_member' || policy === 'org_admin') && !route.params.includes('org_ref')) {
      throw new OverrideRuleViolation(
        'org_policy_needs_org_ref',
        `${subject}: ${policy} needs {org_ref} in every affected route; ${route.key} has none`,
      );
    }
    if (policy === 'disabled' && route.action === NEVER_DISABLED_ACTION) {
      throw new OverrideRuleViolation('auth_me_never_disabled', `${subject}: auth:me may be reallocated but never disabled`);
    }
  }
  return policy;
}

/** Checks an action override; returns the policy typed, or throws the rule it breaks. */
export function checkActionOverride(catalogue: Catalogue, action: string, policy: string): Policy {
  const definition = catalogue.actionByName.get(action);
  if (!definition) throw new OverrideRuleViolation('unknown_action', `"${action}" is not an action of the catalogue`);
  const routes = definition.routes.map((key) => catalogue.routeByKey.get(key)!);
  return checkRoutes(routes, policy, action);
}

/** Checks a route override (method + catalogue pattern); returns the route and the policy typed. */
export function checkRouteOverride(
  catalogue: Catalogue,
  method: string,
  path: string,
  policy: string,
): { route: CatalogueRoute; policy: Policy } {
  const route = catalogue.routeByKey.get(`${method.toUpperCase()} ${path}`);
  if (!route)
    throw new OverrideRuleViolation(
      'unknown_route',
      `"${method} ${path}" is not a route of the catalogue (use its pattern, e.g. /runs/{run_id})`,
    );
  return { route, policy: checkRoutes([route], policy, route.key) };
}
