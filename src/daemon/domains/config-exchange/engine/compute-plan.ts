import type { PlannedChange, PlanSummary } from '../../../../shared/api/config-exchange.js';
import type { BundleItem, ResourceFamily } from '../family.js';
import { fieldDiffs } from './canonical.js';

export interface ComputedPlan {
  readonly changes: PlannedChange[];
  readonly unmanaged: { family: string; key: string }[];
  readonly summary: PlanSummary;
}

function byKey(family: ResourceFamily, items: readonly BundleItem[]): Map<string, BundleItem> {
  return new Map(items.map((item) => [family.keyOf(item), item]));
}

/**
 * What turns the current items into the desired ones, family by family (`families` in apply order):
 * creates and updates in that order, then deletes in the reverse order. A current item the bundle does
 * not name is destroyed only with `prune`; otherwise it is `unmanaged`, left alone.
 */
export function computePlan(
  families: readonly ResourceFamily[],
  current: ReadonlyMap<string, readonly BundleItem[]>,
  desired: ReadonlyMap<string, readonly BundleItem[]>,
  prune: boolean,
): ComputedPlan {
  const upserts: PlannedChange[] = [];
  const deletes: PlannedChange[] = [];
  const unmanaged: { family: string; key: string }[] = [];
  let unchanged = 0;
  for (const family of families) {
    const want = byKey(family, desired.get(family.name) ?? []);
    const have = byKey(family, current.get(family.name) ?? []);
    for (const [key, after] of ordered(family, want, 1)) {
      const before = have.get(key);
      if (!before) {
        upserts.push({
          family: family.name,
          key,
          action: 'create',
          diffs: fieldDiffs({}, after),
          before: null,
          after,
          ...needs(family, null, after),
        });
        continue;
      }
      const diffs = fieldDiffs(before, after);
      if (diffs.length === 0) unchanged += 1;
      else upserts.push({ family: family.name, key, action: 'update', diffs, before, after, ...needs(family, before, after) });
    }
    const missing = ordered(family, have, -1).filter(([key]) => !want.has(key));
    for (const [key, before] of missing) {
      if (prune) deletes.unshift({ family: family.name, key, action: 'delete', diffs: fieldDiffs(before, {}), before, after: null });
      else unmanaged.push({ family: family.name, key });
    }
  }
  const changes = [...upserts, ...reverseFamilies(deletes)];
  return {
    changes,
    unmanaged,
    summary: {
      add: changes.filter((c) => c.action === 'create').length,
      change: changes.filter((c) => c.action === 'update').length,
      destroy: deletes.length,
      unchanged,
      unmanaged: unmanaged.length,
    },
  };
}

/** `needs_values` of a change, present only when the family declares some (absent keeps other families' plans as they were). */
function needs(family: ResourceFamily, before: BundleItem | null, after: BundleItem): { needs_values?: string[] } {
  const keys = family.needsValues?.(before, after) ?? [];
  return keys.length > 0 ? { needs_values: [...keys] } : {};
}

/**
 * Items in key order, or, for a family whose items reference each other (`depthOf`), shallowest first
 * (`direction` 1: creates and updates) or deepest first (-1: deletes), key order within a depth.
 */
function ordered(family: ResourceFamily, items: ReadonlyMap<string, BundleItem>, direction: 1 | -1): [string, BundleItem][] {
  const byKey = [...items].sort(([a], [b]) => compareKeys(a, b));
  if (!family.depthOf) return byKey;
  const depth = new Map(byKey.map(([key, item]) => [key, family.depthOf!(item, items)]));
  return byKey.sort(([a], [b]) => direction * (depth.get(a)! - depth.get(b)!));
}

/** Deletes were gathered newest family first (unshift); within a family they go back to key order. */
function reverseFamilies(deletes: PlannedChange[]): PlannedChange[] {
  const groups: PlannedChange[][] = [];
  for (const change of deletes) {
    const last = groups.at(-1);
    if (last && last[0]!.family === change.family) last.unshift(change);
    else groups.push([change]);
  }
  return groups.flat();
}

/** Code-unit order: the same on every installation, whatever the database's collation. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
