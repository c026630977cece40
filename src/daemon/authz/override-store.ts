import { CATALOGUE } from '../../shared/catalogue/catalogue.js';
import type { CatalogueRoute } from '../../shared/catalogue/types.js';
import { isPolicy, type Policy } from '../../shared/policy/policies.js';
import { effectivePolicy, NO_OVERRIDES, type EffectivePolicy, type Overrides } from '../../shared/policy/resolution.js';
import type { Logger } from '../logging/logger.js';
import type { EffectivePolicies } from './effective-policies.js';
import type { ActionOverrideRow, OverrideRepo, RouteOverrideRow } from './override-repo.js';

export interface OverrideSnapshot extends Overrides {
  readonly actionRows: readonly ActionOverrideRow[];
  readonly routeRows: readonly RouteOverrideRow[];
  /** Increases with every reload that changed something; the OpenAPI document is rebuilt when it moves. */
  readonly version: number;
}

/**
 * The in-process copy of both override layers. Decisions read an immutable snapshot (two map lookups);
 * a reload builds a new one and swaps it in. Until the first successful reload, registry defaults apply.
 */
export class OverrideStore implements EffectivePolicies {
  #snapshot: OverrideSnapshot = { ...NO_OVERRIDES, actionRows: [], routeRows: [], version: 0 };
  #loaded = false;

  constructor(
    private readonly repo: OverrideRepo,
    private readonly log: Logger,
  ) {}

  get snapshot(): OverrideSnapshot {
    return this.#snapshot;
  }

  /** True once overrides have been read from the database at least once. */
  get loaded(): boolean {
    return this.#loaded;
  }

  policyFor(route: CatalogueRoute): Policy {
    return this.resolve(route).policy;
  }

  resolve(route: CatalogueRoute): EffectivePolicy {
    return effectivePolicy(route, this.#snapshot);
  }

  /** Reads both tables and swaps the snapshot in. Rows naming what the catalogue no longer has are ignored (and logged). */
  async reload(): Promise<void> {
    const { actions, routes } = await this.repo.all();
    const actionMap = new Map<string, Policy>();
    const routeMap = new Map<string, Policy>();
    for (const row of actions) {
      if (CATALOGUE.actionByName.has(row.action) && isPolicy(row.policy)) actionMap.set(row.action, row.policy);
      else this.log.warn({ action: row.action, policy: row.policy }, 'ignoring an action override the catalogue does not support');
    }
    for (const row of routes) {
      const key = `${row.method} ${row.path}`;
      if (CATALOGUE.routeByKey.has(key) && isPolicy(row.policy)) routeMap.set(key, row.policy);
      else this.log.warn({ route: key, policy: row.policy }, 'ignoring a route override the catalogue does not support');
    }
    const previous = this.#snapshot;
    const changed = !sameEntries(previous.actions, actionMap) || !sameEntries(previous.routes, routeMap);
    this.#snapshot = {
      actions: actionMap,
      routes: routeMap,
      actionRows: actions,
      routeRows: routes,
      version: previous.version + (changed ? 1 : 0),
    };
    this.#loaded = true;
  }
}

function sameEntries(a: ReadonlyMap<string, Policy>, b: ReadonlyMap<string, Policy>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}
