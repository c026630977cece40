import type { Principal } from '../../shared/auth/principal.js';
import type { CatalogueRoute } from '../../shared/catalogue/types.js';
import { decide, decidesOnOrganization } from '../../shared/policy/decision.js';
import { DEFAULT_ORG_SLUG, scopeOf } from '../../shared/policy/org-scope.js';
import type { OrgAccessRepo, OrgAccessRow } from './org-access-repo.js';
import type { OverrideStore } from './override-store.js';

export interface ExplainRequest {
  /** The caller as the decision sees it; `undefined` for an anonymous caller. */
  readonly principal: Principal | undefined;
  /** The organization the request would name (`{org_ref}` or X-Org-Id); defaults to the platform default organization. */
  readonly orgRef?: string | undefined;
  /** A personal access token's organization: it acts only there. */
  readonly tokenOrgId?: string | undefined;
}

export interface Explanation {
  readonly route: { readonly method: string; readonly path: string; readonly action: string };
  readonly scope: 'org' | 'platform';
  readonly policy: string;
  readonly source: 'route_override' | 'action_override' | 'default';
  readonly default_policy: string;
  readonly organization: { readonly id: string; readonly slug: string; readonly role: string | null } | null;
  readonly allowed: boolean;
  readonly reason: string;
  readonly required_roles: readonly string[];
}

/** "Would this caller be allowed this route, and why": the same decision the request path makes, with its workings. */
export class Explainer {
  constructor(
    private readonly store: OverrideStore,
    private readonly access: OrgAccessRepo,
  ) {}

  async explain(route: CatalogueRoute, request: ExplainRequest): Promise<Explanation> {
    return (await this.explainMany([route], request))[0]!;
  }

  /** Several routes for one caller in one organization: the organization is looked up once. */
  async explainMany(routes: readonly CatalogueRoute[], request: ExplainRequest): Promise<Explanation[]> {
    const { principal } = request;
    const row = principal ? await this.access.lookup(request.orgRef ?? request.tokenOrgId ?? DEFAULT_ORG_SLUG, principal.sub) : undefined;
    return routes.map((route) => this.#explainOne(route, request, row));
  }

  #explainOne(route: CatalogueRoute, request: ExplainRequest, row: OrgAccessRow | undefined): Explanation {
    const { principal } = request;
    const effective = this.store.resolve(route);
    const scope = scopeOf(route);
    const org = decidesOnOrganization(effective.policy, scope) && row?.is_active ? { id: row.id, slug: row.slug } : undefined;
    const orgRole = org && (!request.tokenOrgId || request.tokenOrgId === org.id) ? (row?.role ?? undefined) : undefined;
    const decision = decide(effective.policy, scope, {
      authenticated: principal !== undefined,
      realmRoles: principal?.realmRoles ?? [],
      org,
      orgRole,
    });
    return {
      route: { method: route.method, path: route.path, action: route.action },
      scope,
      policy: effective.policy,
      source: effective.source,
      default_policy: route.defaultPolicy,
      organization: org ? { ...org, role: orgRole ?? null } : null,
      allowed: decision.allowed,
      reason: decision.reason,
      required_roles: decision.allowed ? [] : decision.requiredRoles,
    };
  }
}
