import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * No module-level mutable state in src/: a cache, a memo or a counter belongs to an object its owner makes
 * (the composition root or a service), so two instances never share it and a test gets a fresh one.
 * Constants are fine: a Set built from a literal list, or a collection typed ReadonlyMap / ReadonlySet.
 */
const SRC = fileURLToPath(new URL('../src', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** A declaration at the top of a module (column 0) that holds state anyone may change. */
const MUTABLE = [
  /^(?:export )?(?:let|var) /,
  /^(?:export )?const \w+(?:: [^=]+)? = (?:new (?:Map|Set|WeakMap|WeakSet)\b|boundedMemo\(|\{\};|\[\];)/,
];
const CONSTANT = [/^(?:export )?const \w+: Readonly(?:Map|Set)</, /= new Set(?:<[^>]*>)?\(\[/];

describe('module-level state', () => {
  it('src/ declares none', () => {
    const found = sources(SRC).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          MUTABLE.some((pattern) => pattern.test(line)) && !CONSTANT.some((pattern) => pattern.test(line))
            ? [`${relative(SRC, file)}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(found).toEqual([]);
  });

  it('would find a module-level cache, memo or variable', () => {
    const flagged = (line: string) => MUTABLE.some((p) => p.test(line)) && !CONSTANT.some((p) => p.test(line));
    expect(flagged('const cache = new Map<string, string>();')).toBe(true);
    expect(flagged('const seen = new WeakMap<object, number>();')).toBe(true);
    expect(flagged('export const mask = boundedMemo(maskOnce, 1024);')).toBe(true);
    expect(flagged('let compiled: string | undefined;')).toBe(true);
    expect(flagged("const CODES = new Set(['57P01', '57P02']);")).toBe(false);
    expect(flagged('const BY_ID: ReadonlyMap<string, number> = new Map(entries);')).toBe(false);
  });
});
