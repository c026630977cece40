import { RESERVED_KEY_PREFIX } from './common.js';
import { isWholeTemplate } from './templates.js';

/**
 * The KEY=VALUE fields (`env`, `extra_vars`, `secrets`, `vars`…) take either an object or a text of
 * lines. A text line is `KEY=VALUE` (split at the first `=`, both sides trimmed); blank lines and lines
 * starting with `#` are skipped; a line that is exactly one template stands for lines rendered at run time.
 */

export interface KeyValueLine {
  readonly line: number;
  readonly key: string;
  readonly value: string;
}

export interface KeyValueTextProblem {
  readonly line: number;
  readonly message: string;
}

export function isReservedKey(key: string): boolean {
  return key.startsWith(RESERVED_KEY_PREFIX);
}

/** Drops the platform's reserved keys (`SERVICE_…`) from a map, which the runtime must ignore. */
export function stripReservedKeys<T>(map: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(map).filter(([key]) => !isReservedKey(key)));
}

export function parseKeyValueText(text: string): { lines: KeyValueLine[]; problems: KeyValueTextProblem[] } {
  const lines: KeyValueLine[] = [];
  const problems: KeyValueTextProblem[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#') || isWholeTemplate(trimmed)) return;
    const eq = trimmed.indexOf('=');
    if (eq < 0) {
      problems.push({ line, message: `line ${line} is not KEY=VALUE` });
      return;
    }
    lines.push({ line, key: trimmed.slice(0, eq).trim(), value: trimmed.slice(eq + 1).trim() });
  });
  return { lines, problems };
}

/** Why a key is refused, or undefined. `grouped` keys are `GROUP:NAME` (`group_secrets`). */
export function keyProblem(key: string, grouped: boolean): string | undefined {
  if (key === '') return 'the key is empty';
  if (/[\s=]/.test(key)) return `the key ${JSON.stringify(key)} contains a space or '='`;
  if (grouped && !/^[^:]+:[^:]+$/.test(key)) return `the key ${JSON.stringify(key)} is not GROUP:NAME`;
  return undefined;
}

/**
 * The map a KEY=VALUE field stands for, reserved keys dropped; for the runtime, after validation.
 * Duplicate keys in a text: the last line wins (the validator refuses them on save).
 */
export function keyValueMap(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    const map: Record<string, unknown> = {};
    for (const { key, value: v } of parseKeyValueText(value).lines) map[key] = v;
    return stripReservedKeys(map);
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return stripReservedKeys(value as Record<string, unknown>);
  return {};
}
