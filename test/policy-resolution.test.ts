import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../src/shared/catalogue/catalogue.js';
import type { Policy } from '../src/shared/policy/policies.js';
import {
  checkActionOverride,
  checkRouteOverride,
  effectivePolicy,
  OverrideRuleViolation,
  type OverrideRule,
} from '../src/shared/policy/resolution.js';

const route = (key: string) => CATALOGUE.routeByKey.get(key)!;
const overrides = (actions: [string, Policy][], routes: [string, Policy][]) => ({ actions: new Map(actions), routes: new Map(routes) });

function ruleOf(fn: () => unknown): OverrideRule | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof OverrideRuleViolation) return error.rule;
    throw error;
  }
  return undefined;
}

describe('effective policy resolution', () => {
  it('rule 1: route override, else action override, else the default', () => {
    const r = route('GET /runs/{run_id}');
    expect(effectivePolicy(r, overrides([], []))).toEqual({ policy: 'viewer', source: 'default' });
    expect(effectivePolicy(r, overrides([['run:view', 'operator']], []))).toEqual({ policy: 'operator', source: 'action_override' });
    expect(effectivePolicy(r, overrides([['run:view', 'operator']], [['GET /runs/{run_id}', 'admin']]))).toEqual({
      policy: 'admin',
      source: 'route_override',
    });
  });

  it('rule 2: a route override binds its own route only, not a sibling the pattern could match', () => {
    const o = overrides([], [['GET /runs/{run_id}', 'admin']]);
    expect(effectivePolicy(route('GET /runs/filter-options'), o).policy).toBe('viewer');
    expect(effectivePolicy(route('GET /runs/{run_id}/events'), o).policy).toBe('viewer');
  });

  it('rule 3: public, internal and custom are never overridable, nor assignable', () => {
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'system:health', 'admin'))).toBe('structural_policy');
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'internal:scheduler', 'admin'))).toBe('structural_policy');
    expect(ruleOf(() => checkRouteOverride(CATALOGUE, 'GET', '/registry/authorize', 'admin'))).toBe('structural_policy');
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'run:view', 'public'))).toBe('structural_policy');
    expect(ruleOf(() => checkRouteOverride(CATALOGUE, 'GET', '/runs', 'internal'))).toBe('structural_policy');
  });

  it('rule 4: permission:manage is pinned at both layers', () => {
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'permission:manage', 'operator'))).toBe('permission_manage_pinned');
    expect(ruleOf(() => checkRouteOverride(CATALOGUE, 'GET', '/settings/permissions', 'admin'))).toBe('permission_manage_pinned');
  });

  it('rule 5: org_member/org_admin only where every affected route has {org_ref}', () => {
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'org_member:manage', 'org_member'))).toBeUndefined();
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'org:manage', 'org_admin'))).toBe('org_policy_needs_org_ref');
    expect(ruleOf(() => checkRouteOverride(CATALOGUE, 'PATCH', '/orgs/{org_ref}', 'org_admin'))).toBeUndefined();
    expect(ruleOf(() => checkRouteOverride(CATALOGUE, 'GET', '/runs', 'org_member'))).toBe('org_policy_needs_org_ref');
  });

  it('rule 6: disabled is assignable as an override (never a default: the catalogue refuses that)', () => {
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'run:purge', 'disabled'))).toBeUndefined();
    expect(CATALOGUE.actions.some((a) => a.policy === 'disabled')).toBe(false);
  });

  it('rule 7: auth:me may be reallocated but never disabled', () => {
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'auth:me', 'viewer'))).toBeUndefined();
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'auth:me', 'disabled'))).toBe('auth_me_never_disabled');
    expect(ruleOf(() => checkRouteOverride(CATALOGUE, 'GET', '/auth/me', 'disabled'))).toBe('auth_me_never_disabled');
  });

  it('names unknown actions, routes and policies', () => {
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'nope:nope', 'admin'))).toBe('unknown_action');
    expect(ruleOf(() => checkRouteOverride(CATALOGUE, 'GET', '/runs/123', 'admin'))).toBe('unknown_route');
    expect(ruleOf(() => checkActionOverride(CATALOGUE, 'run:view', 'superuser'))).toBe('unknown_policy');
  });
});
