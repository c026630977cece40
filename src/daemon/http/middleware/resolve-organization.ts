import type { Principal } from '../../../shared/auth/principal.js';
import { decidesOnOrganization } from '../../../shared/policy/decision.js';
import { DEFAULT_ORG_SLUG, scopeOf } from '../../../shared/policy/org-scope.js';
import { STRUCTURAL_POLICIES } from '../../../shared/policy/policies.js';
import type { AuthResult } from '../../auth/auth-result.js';
import type { OrgAccessRepo, OrgRef } from '../../authz/org-access-repo.js';
import { problem } from '../../../shared/api/problem.js';
import { requestHeader } from '../request-header.js';
import type { AppContext, Step } from '../types.js';

const ORG_REF = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[a-z0-9]+(?:-[a-z0-9]+)*)$/i;

/**
 * The active organization of an organization-scoped route (or one whose policy is org_member/org_admin):
 * `{org_ref}` when the path has one, else `X-Org-Id`, else the token's organization for a personal
 * access token, else the platform default organization. A foreign organization and a nonexistent one
 * look the same to the caller: no organization, so the decision refuses with 403; only a platform admin,
 * who may see every organization, is told 404 `org_not_found`.
 */
export function resolveOrganization(access: OrgAccessRepo): Step {
  return function resolveOrganizationStep(ctx) {
    const route = ctx.state.mounted!.route;
    const policy = ctx.state.policy!;
    const scope = scopeOf(route);
    ctx.state.scope = scope;
    const needsOrg = !STRUCTURAL_POLICIES.has(policy) && decidesOnOrganization(policy, scope);
    const auth = ctx.state.auth;
    if (!needsOrg || !auth?.principal) return;
    const header = requestHeader(ctx, 'x-org-id');
    if (header !== '' && (header.length > 100 || !ORG_REF.test(header))) {
      throw problem('invalid_org_header', 'X-Org-Id must be one organization id or slug.');
    }
    const pathRef = ctx.state.params.org_ref;
    // A run token acts in its run's organization, whatever the request names.
    const ref = auth.runToken?.orgId ?? pathRef ?? (header || undefined) ?? auth.pat?.orgId ?? DEFAULT_ORG_SLUG;
    // The usual request finds its organization (and role) cached: answered without a promise.
    const cached = pathRef && header ? undefined : access.cachedOrg(ref);
    if (cached !== undefined) return enter(ctx, auth, auth.principal, ref, cached ?? undefined);
    return resolve(ctx, auth, auth.principal, ref, pathRef, header);
  };

  async function resolve(
    ctx: AppContext,
    auth: AuthResult,
    principal: Principal,
    ref: string,
    pathRef: string | undefined,
    header: string,
  ): Promise<void> {
    const org = await access.org(ref);
    if (pathRef && header && org) {
      const named = header === org.id || header === org.slug ? org : await access.org(header);
      if (named?.id !== org.id) throw problem('org_header_mismatch', 'X-Org-Id names another organization than the path.');
    }
    return enter(ctx, auth, principal, ref, org);
  }

  function enter(ctx: AppContext, auth: AuthResult, principal: Principal, ref: string, org: OrgRef | undefined): void | Promise<void> {
    const platformAdmin = principal.realmRoles.includes('admin');
    if (!org?.is_active) {
      // A platform admin sees every organization, so telling it that this one is not there reveals nothing.
      if (platformAdmin) throw problem('org_not_found', org ? `Organization ${ref} is deactivated.` : `No organization ${ref}.`);
      return;
    }
    ctx.state.org = { id: org.id, slug: org.slug };
    ctx.state.audit!.orgId = org.id;
    // A platform admin passes without a membership (a token carries no realm role); a personal access
    // token acts only in its own organization.
    const tokenElsewhere = auth.pat !== undefined && auth.pat.orgId !== org.id;
    if (platformAdmin || tokenElsewhere) return;
    // A run token is no member: it holds the operator role in its run's organization (access-control.md, Run-scoped tokens).
    if (auth.runToken) {
      if (auth.runToken.orgId === org.id) ctx.state.orgRole = 'operator';
      return;
    }
    const role = access.cachedRole(org.id, principal.sub);
    if (role !== undefined) {
      ctx.state.orgRole = role ?? undefined;
      return;
    }
    return access.role(org.id, principal.sub).then((found) => {
      ctx.state.orgRole = found;
    });
  }
}
