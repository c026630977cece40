import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/spawn.js';

/** The modules a file of src/ loads with it: its static imports, transitively. */
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
  visit(entry);
  return seen;
}

describe('svc start-up', () => {
  it('loads no command module and no openid-client before a command runs (--help, --version)', () => {
    const graph = [...staticImportGraph(join(REPO_ROOT, 'src/cli/main.ts'))];
    expect(graph.filter((m) => !m.startsWith('/'))).toEqual(['commander']);
    expect(graph.some((m) => m.includes('openid-client') || m.includes('/src/cli/auth/') || m.includes('/commands/auth/'))).toBe(false);
  });

  // Each costs an authenticated command's start-up tens of milliseconds (zod alone 95 modules, ~0.2 s).
  const HEAVY = ['zod', 'openid-client', 'jose', 'ink', 'react', 'jq-wasm'];

  it('an authenticated command loads none of zod, openid-client, jose, ink, react or jq (whoami, api, runs start, runs watch)', () => {
    // The store comes in by ctx.store() on every command that reads the stored credential.
    for (const entry of [
      'src/cli/commands/auth/whoami.ts',
      'src/cli/commands/api/request.ts',
      'src/cli/auth/store.ts',
      'src/cli/commands/runs/start.ts',
      'src/cli/commands/runs/watch.ts',
    ]) {
      const packages = [...staticImportGraph(join(REPO_ROOT, entry))].filter((m) => !m.startsWith('/') && !m.startsWith('node:'));
      expect({ entry, heavy: packages.filter((p) => HEAVY.includes(p)) }).toEqual({ entry, heavy: [] });
    }
  });
});
