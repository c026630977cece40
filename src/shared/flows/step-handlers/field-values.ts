import type { HandlerField } from './types.js';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a configured value leaves the field at its default: absent, null, the default itself, or an
 * empty string, list or object where the spec gives no default. A template is never a default: what it
 * renders to is unknown when the step is saved.
 */
export function isDefaultValue(field: HandlerField, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (field.default !== undefined && sameValue(value, field.default)) return true;
  if (field.default === undefined || field.default === null) {
    if (value === '') return true;
    if (Array.isArray(value) && value.length === 0) return true;
    if (isPlainObject(value) && Object.keys(value).length === 0) return true;
  }
  return false;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  return a === b;
}
