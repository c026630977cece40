import { createHash } from 'node:crypto';
import type { FieldDiff } from '../../../../shared/api/config-exchange.js';
import { canonical } from '../../inventory/access.js';

export { canonical };

export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a ?? null) === canonical(b ?? null);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The fields that differ between two versions of an item, objects descended into (so a changed key of a
 * JSON value shows as `value.mtu`), arrays and scalars compared whole. Keys in the order `before` then
 * `after` name them, which is the family's field order.
 */
export function fieldDiffs(before: unknown, after: unknown, path = ''): FieldDiff[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => fieldDiffs(before[key], after[key], path ? `${path}.${key}` : key));
  }
  return sameValue(before, after) ? [] : [{ path, before: before ?? null, after: after ?? null }];
}
