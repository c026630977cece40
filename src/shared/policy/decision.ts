import { ROLE_GRANTS, rolesSatisfy } from './grants.js';
import type { RouteScope } from './org-scope.js';
import type { Policy } from './policies.js';

/** What the decision needs to know about the caller; no I/O happens here. */
export interface Caller {
  readonly authenticated: boolean;
  /** Realm roles; a personal access token has none. */
  readonly realmRoles: readonly string[];
  /** The active organization, when it exists and is active. */
  readonly org?: { readonly id: string; readonly slug: string };
  /** The caller's membership role in that organization, if a member. */
  readonly orgRole?: string;
}

export type Decision =
  | { readonly allowed: true; readonly reason: string }
  | { readonly allowed: false; readonly reason: string; readonly requiredRoles: readonly string[] };

const allow = (reason: string): Decision => ({ allowed: true, reason });
const deny = (reason: string, requiredRoles: readonly string[] = []): Decision => ({ allowed: false, reason, requiredRoles });

/**
 * Whether the decision needs the active organization: every organization-scoped route, and the
 * organization policies wherever they are assigned. The request path and explain ask the same question.
 */
export function decidesOnOrganization(policy: Policy, scope: RouteScope): boolean {
  return scope === 'org' || policy === 'org_member' || policy === 'org_admin';
}

/**
 * The effective policy against a caller. Platform scope decides on realm roles only (an organization
 * role counts for nothing there). Organization scope, and the `org_member`/`org_admin` policies
 * anywhere, need membership in the active organization (platform admins excepted) and then decide on
 * the membership role. Structural policies were settled by authentication.
 */
export function decide(policy: Policy, scope: RouteScope, caller: Caller): Decision {
  if (policy === 'public' || policy === 'internal' || policy === 'custom') return allow(`${policy} route: authentication decides`);
  if (policy === 'disabled') return deny('the route is disabled');
  if (!caller.authenticated) return deny('not authenticated');
  const platformAdmin = caller.realmRoles.includes('admin');
  if (decidesOnOrganization(policy, scope)) {
    if (!caller.org) return deny('no such organization, or not a member of it', policy === 'org_admin' ? ['admin'] : []);
    if (platformAdmin) return allow('platform admin');
    if (!caller.orgRole) return deny(`not a member of ${caller.org.slug}`, ROLE_GRANTS[policy] ?? []);
    if (policy === 'authenticated' || policy === 'org_member') return allow(`member of ${caller.org.slug} (${caller.orgRole})`);
    if (policy === 'org_admin')
      return caller.orgRole === 'admin'
        ? allow(`admin of ${caller.org.slug}`)
        : deny(`requires the admin role in ${caller.org.slug}`, ['admin']);
    return rolesSatisfy(policy, [caller.orgRole])
      ? allow(`role ${caller.orgRole} in ${caller.org.slug}`)
      : deny(`requires one of ${ROLE_GRANTS[policy]!.join(', ')} in ${caller.org.slug}; has ${caller.orgRole}`, ROLE_GRANTS[policy]!);
  }
  if (policy === 'authenticated') return allow('any authenticated caller');
  const granted = caller.realmRoles.find((role) => rolesSatisfy(policy, [role]));
  return granted
    ? allow(`realm role ${granted}`)
    : deny(`requires one of the realm roles ${ROLE_GRANTS[policy]!.join(', ')}`, ROLE_GRANTS[policy]!);
}
