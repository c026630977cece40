import { CATALOGUE } from '../catalogue/catalogue.js';
import type { CatalogueRoute } from '../catalogue/types.js';

/**
 * Path prefixes of tenant resources: routes under them are organization-scoped (decided on the caller's
 * role in the active organization). Everything else (health, docs, auth, /settings, /platform, platform
 * sync, configuration exchange, audit logs, personal access tokens, workers, the internal callbacks, the
 * organization list and its creation) is platform-scoped and decided on realm roles only.
 */
export const ORG_PREFIXES: readonly string[] = [
  '/orgs/{org_ref}',
  '/runs',
  '/bff/runs',
  '/approvals',
  '/sites',
  '/devices',
  '/inventory/objects',
  '/inventory/object-types',
  '/inventory/provider-types',
  '/inventory/providers',
  '/inventory/provider-inventory',
  '/flows',
  '/flow-interface',
  '/schedules',
  '/webhooks',
  '/notifications',
  '/secrets',
  '/iac-states',
  '/variables',
  '/variable-contexts',
  '/file-repositories',
  '/files',
  '/git-repositories',
  '/registry-credentials',
  '/images',
  '/binary-artifacts',
  '/dashboard/stats',
];

/**
 * Routes under an organization prefix that still belong to the deployment: deleting or renaming an
 * organization is a platform decision, never an organization admin's.
 */
const PLATFORM_EXCEPTIONS: ReadonlySet<string> = new Set(['PATCH /orgs/{org_ref}', 'DELETE /orgs/{org_ref}']);

export type RouteScope = 'org' | 'platform';

/**
 * The active organization when a request names none: the platform default organization, made by a
 * migration with this slug (slugs are immutable).
 */
export const DEFAULT_ORG_SLUG = 'default';

function classifyScope(route: Pick<CatalogueRoute, 'key' | 'path'>): RouteScope {
  if (PLATFORM_EXCEPTIONS.has(route.key)) return 'platform';
  const underPrefix = ORG_PREFIXES.some((prefix) => route.path === prefix || route.path.startsWith(`${prefix}/`));
  return underPrefix ? 'org' : 'platform';
}

/** Every catalogue route classified once, so the request path pays a map read, not 27 prefix tests. */
const SCOPES: ReadonlyMap<string, RouteScope> = new Map(CATALOGUE.routes.map((route) => [route.key, classifyScope(route)]));

export function scopeOf(route: CatalogueRoute): RouteScope {
  return SCOPES.get(route.key) ?? classifyScope(route);
}
