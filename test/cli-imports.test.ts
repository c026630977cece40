import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/spawn.js';

const CLI = join(REPO_ROOT, 'src/cli');

/** What a module imports: static imports, type-only ones and `import()` told apart, as written. */
function importsOf(file: string): { specifier: string; kind: 'static' | 'type' | 'dynamic' }[] {
  const source = readFileSync(file, 'utf8');
  const found: { specifier: string; kind: 'static' | 'type' | 'dynamic' }[] = [];
  for (const m of source.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gm))
    found.push({ specifier: m[3]!, kind: m[2] ? 'type' : 'static' });
  for (const m of source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) found.push({ specifier: m[1]!, kind: 'dynamic' });
  return found;
}

/** A relative specifier as the file it names (`.js` written, `.ts` or `.tsx` on disk); packages as they are. */
function resolved(from: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const base = resolve(dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`].find(existsSync) ?? `${base}.ts`;
}

/** Every edge of the CLI's import graph, whichever kind: a loop through a type or an `import()` is a loop still. */
function cliGraph(): Map<string, string[]> {
  const files = readdirSync(CLI, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => join(CLI, f));
  return new Map(files.map((file) => [file, importsOf(file).map((i) => resolved(file, i.specifier))]));
}

/** The modules a file loads with it before any of its code runs: static imports, transitively. */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.startsWith('/')) return;
    for (const i of importsOf(file)) if (i.kind === 'static') visit(resolved(file, i.specifier));
  };
  visit(entry);
  return seen;
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].map((f) => relative(CLI, f)));
      else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe("the CLI's import graph", () => {
  it('has no cycle, counting type-only imports and import()', () => {
    const graph = cliGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(cycles(graph)).toEqual([]);
  });

  it('the HTTP client knows nothing of credentials files, prompts or commands: http/ imports neither auth/, commands/ nor the context', () => {
    const upward = [...cliGraph()]
      .filter(([file]) => file.startsWith(join(CLI, 'http/')))
      .flatMap(([file, imports]) => imports.map((target) => [relative(CLI, file), relative(CLI, target)] as const))
      .filter(([, target]) => /^(auth|commands)\//.test(target) || target.startsWith('runtime/'));
    expect(upward).toEqual([]);
  });

  // What `svc --help` loads: the top-level verbs' modules, for their flags and help (commands/registry.ts).
  const TOP_LEVEL_VERBS = ['auth/login.ts', 'auth/logout.ts', 'auth/whoami.ts', 'api/request.ts', 'perms/perms.ts', 'completion/script.ts'];
  const HEAVY = ['zod', 'openid-client', 'jose', 'ink', 'react', 'jq-wasm'];

  it('the verb modules svc --help defines load none of zod, openid-client, jose, ink, react or jq with their flags', () => {
    for (const verb of TOP_LEVEL_VERBS) {
      const packages = [...staticClosure(join(CLI, 'commands', verb))].filter((m) => !m.startsWith('/'));
      expect({ verb, heavy: packages.filter((p) => HEAVY.includes(p)) }).toEqual({ verb, heavy: [] });
    }
  });

  it('the runs verbs load none of them with their module: the stream parser is eventsource-parser alone, Ink only through ui/render.ts when a terminal shows the view', () => {
    for (const verb of ['start', 'list', 'get', 'watch', 'cancel', 'pause', 'resume']) {
      const closure = [...staticClosure(join(CLI, 'commands', 'runs', `${verb}.ts`))];
      const packages = closure.filter((m) => !m.startsWith('/'));
      expect({ verb, heavy: packages.filter((p) => HEAVY.includes(p)) }).toEqual({ verb, heavy: [] });
      expect({ verb, view: closure.filter((m) => m.endsWith('/ui/run-watch.tsx')) }).toEqual({ verb, view: [] });
    }
    expect([...staticClosure(join(CLI, 'commands', 'runs', 'watch.ts'))]).toContain(join(CLI, 'ui', 'render.ts'));
  });

  it('the approvals verbs load none of them, and no view: their wire types are imported as types only', () => {
    for (const verb of ['list', 'get', 'approve', 'reject']) {
      const closure = [...staticClosure(join(CLI, 'commands', 'approvals', `${verb}.ts`))];
      expect({ verb, heavy: closure.filter((m) => HEAVY.includes(m)) }).toEqual({ verb, heavy: [] });
      expect({ verb, ui: closure.filter((m) => m.startsWith(join(CLI, 'ui'))) }).toEqual({ verb, ui: [] });
    }
  });
});
