import type { DashboardWindow } from '../../../shared/api/dashboard.js';

export type BucketUnit = 'hour' | 'day';

/** A dashboard window resolved at one instant: whole UTC buckets, the current (partial) one last. */
export interface ResolvedWindow {
  readonly name: DashboardWindow;
  readonly unit: BucketUnit;
  readonly from: Date;
  readonly to: Date;
  /** Every bucket's start, oldest first. */
  readonly buckets: readonly Date[];
}

const SHAPES: Record<DashboardWindow, { unit: BucketUnit; count: number; ms: number }> = {
  '24h': { unit: 'hour', count: 24, ms: 3_600_000 },
  '7d': { unit: 'day', count: 7, ms: 86_400_000 },
  '30d': { unit: 'day', count: 30, ms: 86_400_000 },
};

/**
 * Buckets aligned to whole hours or UTC days, so two reads a minute apart show the same buckets and a
 * chart's bars do not slide; the window so starts at the first bucket's start, up to an hour (a day)
 * more than its name.
 */
export function resolveWindow(name: DashboardWindow, now: Date): ResolvedWindow {
  const { unit, count, ms } = SHAPES[name];
  const current = Math.floor(now.getTime() / ms) * ms;
  const buckets = Array.from({ length: count }, (_, i) => new Date(current - (count - 1 - i) * ms));
  return { name, unit, from: buckets[0]!, to: now, buckets };
}
