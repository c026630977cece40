import { createHash } from 'node:crypto';
import type { PlannedChange } from '../../../shared/api/config-exchange.js';
import type { SyncChange } from '../../../shared/api/platform-sync-plans.js';
import { canonical } from '../inventory/access.js';

/** Families whose update replaces what a secret holds: destructive like a delete (an authorization is needed). */
const SECRET_BEARING_FAMILIES: ReadonlySet<string> = new Set(['secrets']);

/** The hash of one item in bundle shape: equal exactly when the items are, whatever their field order. */
export function itemHash(item: unknown): string {
  return createHash('sha256')
    .update(canonical(item ?? null), 'utf8')
    .digest('hex');
}

/** `family\0key`: how applied hashes are looked up. */
export const itemRef = (family: string, key: string) => `${family}\u0000${key}`;

/**
 * A change's stable id: a digest of its family, key, action and both sides' versions, so planning the
 * same source against the same target again gives the same id (a resolution recorded for it still holds),
 * and a change of either side gives a new one (the resolution must be made again).
 */
export function changeId(change: PlannedChange): string {
  const parts = [change.family, change.key, change.action, itemHash(change.before), itemHash(change.after)];
  return createHash('sha256').update(parts.join('\u0000'), 'utf8').digest('hex').slice(0, 32);
}

export function isDestructive(change: Pick<PlannedChange, 'family' | 'action'>): boolean {
  return change.action === 'delete' || (change.action === 'update' && SECRET_BEARING_FAMILIES.has(change.family));
}

/**
 * A conflict: the target item drifted since the profile's last apply (its current version, `before`, is
 * not what that apply left) and the source changed it too (its version, `after`, is not that either). An
 * item the profile never applied cannot conflict: there is no common ancestor to have drifted from.
 */
export function isConflict(change: PlannedChange, applied: ReadonlyMap<string, string>): boolean {
  const left = applied.get(itemRef(change.family, change.key));
  if (left === undefined) return false;
  const targetDrifted = change.before === null || itemHash(change.before) !== left;
  const sourceChanged = change.after === null || itemHash(change.after) !== left;
  return targetDrifted && sourceChanged;
}

/** The engine's changes as a profile's plan lists them (resolutions joined when the plan is read). */
export function annotate(changes: readonly PlannedChange[], applied: ReadonlyMap<string, string>): Omit<SyncChange, 'resolution'>[] {
  return changes.map((change) => ({
    change_id: changeId(change),
    family: change.family,
    key: change.key,
    action: change.action,
    diffs: change.diffs,
    conflict: isConflict(change, applied),
    destructive: isDestructive(change),
  }));
}
