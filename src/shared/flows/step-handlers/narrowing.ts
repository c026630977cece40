import { isDefaultValue, isPlainObject } from './field-values.js';
import type { HandlerField, Narrowing, StepHandler } from './types.js';

export interface NarrowedUse {
  readonly key: string;
  readonly narrowing: Narrowing;
  readonly value: unknown;
}

/**
 * The narrowed options (host access, egress) a step's configuration actually sets: each field marked
 * `narrowing` whose value is not its default. The caller decides what needs a platform admin (for
 * egress: only a widening of the flow's network policy).
 */
export function narrowedUses(handler: StepHandler | undefined, config: unknown): NarrowedUse[] {
  if (!handler || !isPlainObject(config)) return [];
  return handler.fields
    .filter((field): field is HandlerField & { narrowing: Narrowing } => field.narrowing !== undefined)
    .filter((field) => Object.hasOwn(config, field.key) && !isDefaultValue(field, config[field.key]))
    .map((field) => ({ key: field.key, narrowing: field.narrowing, value: config[field.key] }));
}
