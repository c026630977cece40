import type { Catalogue } from '../../shared/catalogue/catalogue.js';
import { RouteTrie } from '../../shared/routing/route-trie.js';
import type { DomainRoutes, MountedRoute, RouteBinding } from './types.js';

/** A handler was registered for a method + path the catalogue does not list, or twice. */
export class RouteTableError extends Error {
  override name = 'RouteTableError';
}

/**
 * Puts every catalogue route in the dispatch trie, each with its handler if a domain provides one.
 * A handler for a route without an action stops start-up: a route exists only as a catalogue row.
 */
export function mountRoutes(
  catalogue: Catalogue,
  domains: readonly DomainRoutes[],
): { trie: RouteTrie<MountedRoute>; mounted: MountedRoute[] } {
  const bindings = new Map<string, RouteBinding>();
  for (const domain of domains) {
    for (const [key, binding] of Object.entries(domain)) {
      if (!binding) continue;
      if (!catalogue.routeByKey.has(key)) throw new RouteTableError(`handler for "${key}", which has no action in the catalogue`);
      if (bindings.has(key)) throw new RouteTableError(`two handlers for "${key}"`);
      bindings.set(key, binding);
    }
  }
  const trie = new RouteTrie<MountedRoute>();
  const mounted = catalogue.routes.map((route) => {
    const entry: MountedRoute = { route, binding: bindings.get(route.key) };
    trie.add(route.method, route.path, entry);
    return entry;
  });
  return { trie, mounted };
}

/**
 * Tests: `replacements`' handlers in place of the domains' own on the same routes. Every catalogue route
 * has a domain now, so a test probing the request path with a handler of its own replaces one.
 */
export function withReplacements(domains: readonly DomainRoutes[], replacements: readonly DomainRoutes[]): DomainRoutes[] {
  if (replacements.length === 0) return [...domains];
  const replaced = new Set(replacements.flatMap((domain) => Object.keys(domain)));
  const kept = domains.map((domain) => Object.fromEntries(Object.entries(domain).filter(([key]) => !replaced.has(key))) as DomainRoutes);
  return [...kept, ...replacements];
}
