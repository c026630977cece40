import type { RouteTrie } from '../../../shared/routing/route-trie.js';
import { problems } from '../../../shared/api/problems.js';
import type { MountedRoute, Step } from '../types.js';

/**
 * Finds the catalogue route first, so every later step knows the action and pattern. HEAD is served
 * by the GET route; OPTIONS on a known path lists its methods.
 */
export function matchRoute(trie: RouteTrie<MountedRoute>): Step {
  // The same for every request: made once, so a flood of unknown paths makes no Problem (and captures no stack) each.
  const notFound = problems.notFound();
  const invalidPath = problems.invalidPath();
  return function matchRouteStep(ctx) {
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const match = trie.match(method, ctx.path);
    switch (match.kind) {
      case 'found':
        ctx.state.mounted = match.value;
        ctx.state.params = match.params;
        return;
      case 'bad_path':
        throw invalidPath;
      case 'not_found':
        throw notFound;
      case 'method_not_allowed': {
        const allow = match.allow.includes('GET') ? [...match.allow, 'HEAD'] : [...match.allow];
        if (ctx.method === 'OPTIONS') {
          ctx.set('Allow', [...allow, 'OPTIONS'].join(', '));
          ctx.status = 204;
          return 'answered';
        }
        throw problems.methodNotAllowed(allow);
      }
    }
  };
}
