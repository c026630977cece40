import type { RepositoryAccess } from './registry-request.js';

/**
 * The registry's namespaces: `orgs/<slug>/…` belongs to an organization, `global/…` to the platform.
 * An organization's pull-through cache copies live under `orgs/<slug>/<host>/…`, `<host>` being the
 * upstream registry's host name (a component with a dot, or `localhost`, as Docker tells a host from a path).
 */
export const GLOBAL_NAMESPACE = 'global';

export function orgNamespace(slug: string): string {
  return `orgs/${slug}`;
}

/** The namespace a repository sits in (`orgs/<slug>` or `global`), or undefined outside both. */
export function namespaceOf(repository: string): string | undefined {
  const parts = repository.split('/');
  if (parts[0] === GLOBAL_NAMESPACE && parts.length > 1) return GLOBAL_NAMESPACE;
  if (parts[0] === 'orgs' && parts.length > 2) return `orgs/${parts[1]}`;
  return undefined;
}

/** The organization slug of an `orgs/<slug>/…` repository. */
export function orgSlugOf(repository: string): string | undefined {
  const namespace = namespaceOf(repository);
  return namespace?.startsWith('orgs/') ? namespace.slice('orgs/'.length) : undefined;
}

function looksLikeHost(component: string): boolean {
  return component.includes('.') || component === 'localhost';
}

/** True when the repository is in the organization's own cache namespace: `orgs/<slug>/<host>/<name…>`. */
export function isOrgCacheRepository(repository: string, slug: string): boolean {
  const parts = repository.split('/');
  return parts.length >= 4 && parts[0] === 'orgs' && parts[1] === slug && looksLikeHost(parts[2]!);
}

export interface RegistryScope {
  /** The token's organization (`registry:step:<org_slug>`). */
  readonly orgSlug: string;
  /** The platform's shared organization, whose namespace every organization may pull from. */
  readonly sharedOrgSlug: string | undefined;
}

/** Whether a run token of that scope may do this: pull from its own, the shared and the global namespace; push only into its cache namespace. */
export function mayAccess(scope: RegistryScope, need: RepositoryAccess): boolean {
  if (need.action === 'push') return isOrgCacheRepository(need.repository, scope.orgSlug);
  const namespace = namespaceOf(need.repository);
  if (namespace === undefined) return false;
  if (namespace === GLOBAL_NAMESPACE || namespace === orgNamespace(scope.orgSlug)) return true;
  return scope.sharedOrgSlug !== undefined && namespace === orgNamespace(scope.sharedOrgSlug);
}

/** The scope string a registry run token carries. */
export function registryTokenScope(orgSlug: string): string {
  return `registry:step:${orgSlug}`;
}

/** The organization slug of a `registry:step:<org_slug>` scope, or undefined for any other scope. */
export function slugOfRegistryScope(scope: string): string | undefined {
  const prefix = 'registry:step:';
  return scope.startsWith(prefix) && scope.length > prefix.length ? scope.slice(prefix.length) : undefined;
}
