import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { CATALOGUE } from '../../../shared/catalogue/catalogue.js';
import { decide } from '../../../shared/policy/decision.js';
import { DEFAULT_ORG_SLUG } from '../../../shared/policy/org-scope.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { AuthResult } from '../../auth/auth-result.js';
import type { EffectivePolicies } from '../../authz/effective-policies.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import { recordDenial } from '../../authz/record-denial.js';

/** Whoever may read a run's events may watch them: the stream is decided as this route is, overrides included. */
const EVENTS_ROUTE = CATALOGUE.routeByKey.get('GET /runs/{run_id}/events')!;
const STREAM_ROUTE = CATALOGUE.routeByKey.get('GET /bff/runs/{run_id}/events/stream')!;

export interface StreamCaller {
  readonly auth: AuthResult;
  /** The organization the caller names (`?org=`, else `X-Org-Id`), id or slug. */
  readonly orgRef: string | undefined;
  readonly audit: AuditContext | undefined;
}

/**
 * The stream's policy is `custom` (a ticket or a bearer authenticates it), so the request path chooses no
 * organization and decides nothing for it; this does, as `resolveOrganization` and `authorize` do for
 * `GET /runs/{run_id}/events`. The organization is the one named, else a personal access token's (a
 * ticket obtained with one included), else the default. A caller who is no member of it is told 404,
 * as for another organization's run; a member whose role the policy refuses, 403.
 */
export class StreamAccess {
  constructor(
    private readonly orgAccess: OrgAccessRepo,
    private readonly policies: EffectivePolicies,
    private readonly audit: AuditWriter,
  ) {}

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
    const policy = this.policies.policyFor(EVENTS_ROUTE);
    const decision = decide(policy, 'org', { authenticated: true, realmRoles: principal.realmRoles, org, orgRole });
    if (decision.allowed) return { id: org.id, slug: org.slug };
    if (!orgRole) throw problems.resourceNotFound('Run');
    await recordDenial(this.audit, caller.audit, STREAM_ROUTE, { policy, scope: 'org', reason: decision.reason });
    throw problems.forbidden(`Insufficient permissions. Required role: ${decision.requiredRoles.at(-1) ?? policy}`, {
      action: STREAM_ROUTE.action,
      policy,
      scope: 'org',
    });
  }
}
