import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/spawn.js';

/** The modules `src/cli/main.ts` loads before any command runs: its static imports, transitively. */
function staticImportGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.startsWith('/')) return;
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)) {
      const specifier = match[1]!;
      visit(specifier.startsWith('.') ? resolve(dirname(file), specifier).replace(/\.js$/, '.ts') : specifier);
    }
  };
  visit(join(REPO_ROOT, 'src/cli/main.ts'));
  return seen;
}

describe('svc start-up', () => {
  it('loads no command module and no openid-client before a command runs (--help, --version)', () => {
    const graph = [...staticImportGraph(join(REPO_ROOT, 'src/cli/main.ts'))];
    expect(graph.filter((m) => !m.startsWith('/'))).toEqual(['commander']);
    expect(graph.some((m) => m.includes('openid-client') || m.includes('/src/cli/auth/') || m.includes('/commands/auth/'))).toBe(false);
  });
});
