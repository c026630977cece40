import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(() => daemon?.close());

type Json = Record<string, unknown>;

/** The value a JSON pointer fragment (`#/a/b`) names inside `root`, or undefined. */
function resolve(root: Json, fragment: string): unknown {
  const tokens = fragment.replace(/^#\/?/, '').split('/').filter(Boolean);
  return tokens.reduce<unknown>(
    (node, token) =>
      node !== null && typeof node === 'object' ? (node as Json)[token.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined,
    root,
  );
}

/**
 * Every `$ref` with the place it must resolve in: per JSON Schema 2020-12 (OpenAPI 3.1's dialect), a
 * fragment resolves against the nearest enclosing schema with an `$id`, else against the document.
 */
function refs(node: unknown, base: Json, path: string, found: { ref: string; base: Json; path: string }[]): void {
  if (node === null || typeof node !== 'object') return;
  const here = !Array.isArray(node) && typeof (node as Json).$id === 'string' ? (node as Json) : base;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') found.push({ ref: value, base: here, path });
    else refs(value, here, `${path}/${key}`, found);
  }
}

describe('/openapi.json', () => {
  it('has no $ref that resolves to nothing (a recursive answer, such as the site tree, keeps its $defs to itself)', async () => {
    const doc = (await (await fetch(`${daemon.url}/openapi.json`)).json()) as Json;
    const found: { ref: string; base: Json; path: string }[] = [];
    refs(doc, doc, '', found);
    const broken = found
      .filter(({ ref, base }) => !ref.startsWith('#') || typeof resolve(base, ref) !== 'object')
      .map(({ ref, path }) => `${path}: ${ref}`);
    expect(broken).toEqual([]);
    expect(found.some(({ ref }) => ref.endsWith('/SiteTreeNode'))).toBe(true);
  });
});
