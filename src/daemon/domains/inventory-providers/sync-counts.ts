import type { OutcomeCounts, SyncCounts } from '../../../shared/api/inventory-providers.js';

export type Outcome = keyof OutcomeCounts;
export type Kind = keyof SyncCounts;

const zero = (): OutcomeCounts => ({ created: 0, updated: 0, restored: 0, unchanged: 0, stale: 0, skipped: 0 });

export function emptyCounts(): SyncCounts {
  return { sites: zero(), devices: zero(), objects: zero() };
}

/** Adds a page's outcomes to a sync's running counts. */
export function addCounts(into: SyncCounts, kind: Kind, outcomes: Partial<OutcomeCounts>): void {
  for (const [outcome, n] of Object.entries(outcomes) as [Outcome, number][]) into[kind][outcome] += n;
}
