import { problem } from '../../shared/api/problem.js';
import { problems } from '../../shared/api/problems.js';
import { CATALOGUE } from '../../shared/catalogue/catalogue.js';
import type { CatalogueRoute } from '../../shared/catalogue/types.js';
import { decide } from '../../shared/policy/decision.js';
import { DEFAULT_ORG_SLUG } from '../../shared/policy/org-scope.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { AuditWriter } from '../audit/audit-writer.js';
import type { AuthResult } from '../auth/auth-result.js';
import type { EffectivePolicies } from '../authz/effective-policies.js';
import type { OrgAccessRepo } from '../authz/org-access-repo.js';
import { recordDenial } from '../authz/record-denial.js';

/**
 * A stream and the read it is decided as: whoever may read a run's events (its monitors) may watch them,
 * overrides included. Refusals are recorded against the stream.
 */
export interface StreamRoutes {
  readonly read: string;
  readonly stream: string;
}

function catalogued(key: string): CatalogueRoute {
  const found = CATALOGUE.routeByKey.get(key);
  if (!found) throw new Error(`no route ${key} in the catalogue`);
  return found;
}

export interface StreamCaller {
  readonly auth: AuthResult;
  /** The organization the caller names (`?org=`, else `X-Org-Id`), id or slug. */
  readonly orgRef: string | undefined;
  readonly audit: AuditContext | undefined;
}

/**
 * The stream's policy is `custom` (a ticket or a bearer authenticates it), so the request path chooses no
 * organization and decides nothing for it; this does, as `resolveOrganization` and `authorize` do for
 * its read route (`GET /runs/{run_id}/events`, `GET /runs/{run_id}/monitors`). The organization is the one named, else a personal access token's (a
 * ticket obtained with one included), else the default. A caller who is no member of it is told 404,
 * as for another organization's run; a member whose role the policy refuses, 403.
 */
export class StreamAccess {
  readonly #read: CatalogueRoute;
  readonly #stream: CatalogueRoute;

  constructor(
    private readonly orgAccess: OrgAccessRepo,
    private readonly policies: EffectivePolicies,
    private readonly audit: AuditWriter,
    routes: StreamRoutes,
  ) {
    this.#read = catalogued(routes.read);
    this.#stream = catalogued(routes.stream);
  }

  async organization(caller: StreamCaller): Promise<{ id: string; slug: string }> {
    const { auth } = caller;
    const principal = auth.principal;
    if (!principal) throw problems.resourceNotFound('Run');
    const ref = caller.orgRef ?? auth.pat?.orgId ?? DEFAULT_ORG_SLUG;
    const org = await this.orgAccess.org(ref);
    const platformAdmin = principal.realmRoles.includes('admin');
    if (!org?.is_active) {
      if (platformAdmin) throw problem('org_not_found', org ? `Organization ${ref} is deactivated.` : `No organization ${ref}.`);
      throw problems.resourceNotFound('Run');
    }
    if (caller.audit) caller.audit.orgId = org.id;
    // A personal access token acts only in its own organization.
    const tokenElsewhere = auth.pat !== undefined && auth.pat.orgId !== org.id;
    const orgRole = platformAdmin || tokenElsewhere ? undefined : await this.orgAccess.role(org.id, principal.sub);
    const policy = this.policies.policyFor(this.#read);
    const decision = decide(policy, 'org', { authenticated: true, realmRoles: principal.realmRoles, org, orgRole });
    if (decision.allowed) return { id: org.id, slug: org.slug };
    if (!orgRole) throw problems.resourceNotFound('Run');
    await recordDenial(this.audit, caller.audit, this.#stream, { policy, scope: 'org', reason: decision.reason });
    throw problems.forbidden(`Insufficient permissions. Required role: ${decision.requiredRoles.at(-1) ?? policy}`, {
      action: this.#stream.action,
      policy,
      scope: 'org',
    });
  }
}
