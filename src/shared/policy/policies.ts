/**
 * The twelve policy names of the access-control specification. A policy says who may call a route;
 * every route inherits its action's default policy unless an override says otherwise.
 */
export const POLICIES = [
  'public',
  'authenticated',
  'viewer',
  'auditor',
  'operator',
  'approver',
  'admin',
  'org_member',
  'org_admin',
  'internal',
  'custom',
  'disabled',
] as const;

export type Policy = (typeof POLICIES)[number];

/** Policies that describe how a route authenticates rather than who may call it; never overridable. */
export const STRUCTURAL_POLICIES: ReadonlySet<Policy> = new Set<Policy>(['public', 'internal', 'custom']);

export function isPolicy(value: unknown): value is Policy {
  return typeof value === 'string' && (POLICIES as readonly string[]).includes(value);
}
