import type { Policy } from './policies.js';

/**
 * Role policies and the roles that satisfy each (access-control spec, "Policies"). One departure: the
 * spec's roles table says an approver reads everything, while its `viewer` policy leaves it out; we follow
 * the roles table, so the people who decide approvals can read what they decide (docs/decisions.md).
 */
export const ROLE_GRANTS: Readonly<Partial<Record<Policy, readonly string[]>>> = {
  viewer: ['admin', 'approver', 'auditor', 'operator', 'viewer'],
  auditor: ['admin', 'auditor', 'operator'],
  operator: ['admin', 'operator'],
  approver: ['admin', 'approver'],
  admin: ['admin'],
};

/** True when any of `roles` satisfies the role policy. */
export function rolesSatisfy(policy: Policy, roles: readonly string[]): boolean {
  const grants = ROLE_GRANTS[policy];
  return grants !== undefined && roles.some((role) => grants.includes(role));
}
