/**
 * Organization membership roles, weakest first. The order is the strength used when several IdP
 * mappings match one organization (the strongest wins) and when sync decides whether a role is an
 * upgrade. `operator` ranks above `approver` only for that choice; what each role may do comes from the
 * policy table, where neither includes the other (separation of duties); `admin` holds both.
 */
export const ORG_ROLES = ['viewer', 'auditor', 'approver', 'operator', 'admin'] as const;

export type OrgRole = (typeof ORG_ROLES)[number];

export const DEFAULT_ORG_ROLE: OrgRole = 'viewer';

export function isOrgRole(value: unknown): value is OrgRole {
  return typeof value === 'string' && (ORG_ROLES as readonly string[]).includes(value);
}

/** Higher is stronger; an unknown role (a row written before the set was fixed) ranks below viewer. */
export function roleStrength(role: string): number {
  return (ORG_ROLES as readonly string[]).indexOf(role);
}

export function strongerRole(a: string, b: string): string {
  return roleStrength(b) > roleStrength(a) ? b : a;
}
