import { CATALOGUE } from '../src/shared/catalogue/catalogue.js';
import type { HttpMethod } from '../src/shared/catalogue/types.js';
import { mountRoutes } from '../src/daemon/http/mount-routes.js';
import { decide, type Caller } from '../src/shared/policy/decision.js';
import { scopeOf } from '../src/shared/policy/org-scope.js';
import { effectivePolicy, type Overrides } from '../src/shared/policy/resolution.js';
import { median } from './lib.js';

/**
 * The per-request authorization work without HTTP around it, so a regression in the trie, the override
 * lookup or the decision shows up on its own instead of vanishing in loopback noise. A plain Map lookup
 * loop, timed in the same rounds, is the baseline: the ratio survives a busy machine, nanoseconds do not.
 */
const PATHS = 20;
const ROUNDS = 3;

// Not the dev principal: an admin short-circuits most of decide(). An operator who is a member of
// the active organization walks the role checks on both platform and organization routes.
const CALLER: Caller = { authenticated: true, realmRoles: ['operator'], org: { id: 'org-1', slug: 'acme' }, orgRole: 'operator' };

interface Request {
  readonly method: HttpMethod;
  readonly path: string;
}

/** Routes spread evenly over the catalogue, parameters filled in, so literal and `{param}` segments both occur. */
function requestMix(): Request[] {
  const step = Math.floor(CATALOGUE.routes.length / PATHS);
  return Array.from({ length: PATHS }, (_, i) => {
    const route = CATALOGUE.routes[i * step]!;
    return { method: route.method, path: route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => `v-${name.replaceAll('_', '-')}`) };
  });
}

export interface DecisionFigures {
  readonly nsPerDecision: number;
  readonly nsPerMapLookup: number;
  readonly paths: number;
  readonly allowedShare: number;
}

export function decisionBenchmark(overrides: Overrides, iterations: number): DecisionFigures {
  const { trie } = mountRoutes(CATALOGUE, []);
  const requests = requestMix();
  const keys = requests.map((r) => {
    const match = trie.match(r.method, r.path);
    // A path that does not match its own route would time the not-found branch instead.
    if (match.kind !== 'found') throw new Error(`bench path ${r.method} ${r.path} does not match (${match.kind})`);
    return match.value.route.key;
  });

  // Each loop keeps a count it returns, so the work cannot be dropped as dead code.
  const decisions = (count: number): number => {
    let allowed = 0;
    for (let i = 0, j = 0; i < count; i += 1, j = j + 1 === PATHS ? 0 : j + 1) {
      const request = requests[j]!;
      const match = trie.match(request.method, request.path);
      if (match.kind !== 'found') continue;
      const route = match.value.route;
      if (decide(effectivePolicy(route, overrides).policy, scopeOf(route), CALLER).allowed) allowed += 1;
    }
    return allowed;
  };
  const lookups = (count: number): number => {
    let hits = 0;
    for (let i = 0, j = 0; i < count; i += 1, j = j + 1 === PATHS ? 0 : j + 1) {
      if (overrides.routes.get(keys[j]!) !== undefined) hits += 1;
    }
    return hits;
  };
  const timed = (loop: (count: number) => number): { ns: number; result: number } => {
    const started = process.hrtime.bigint();
    const result = loop(iterations);
    return { ns: Number(process.hrtime.bigint() - started) / iterations, result };
  };

  const warmUp = Math.min(iterations, 200_000);
  decisions(warmUp);
  lookups(warmUp);
  const decisionNs: number[] = [];
  const lookupNs: number[] = [];
  let allowed = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const d = timed(decisions);
    const l = timed(lookups);
    decisionNs.push(d.ns);
    lookupNs.push(l.ns);
    allowed = d.result;
  }
  return { nsPerDecision: median(decisionNs), nsPerMapLookup: median(lookupNs), paths: PATHS, allowedShare: allowed / iterations };
}
