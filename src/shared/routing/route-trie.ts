import type { HttpMethod } from '../catalogue/types.js';

/**
 * A segment trie over route patterns. Matching walks the request path once, trying a literal segment
 * before a `{param}` at each level, so its cost depends on the path's depth, not on how many routes
 * exist (a flat router tests every pattern in turn).
 */
interface TrieNode<T> {
  readonly literal: Map<string, TrieNode<T>>;
  param?: { readonly name: string; readonly node: TrieNode<T> };
  readonly methods: Map<HttpMethod, T>;
}

export type RouteMatch<T> =
  | { readonly kind: 'found'; readonly value: T; readonly params: Record<string, string> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly HttpMethod[] }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'bad_path' };

function newNode<T>(): TrieNode<T> {
  return { literal: new Map(), methods: new Map() };
}

export class RouteTrie<T> {
  readonly #root: TrieNode<T> = newNode();

  /** Adds `method pattern`; a pattern is `/a/{b}/c`. Two values for one method + pattern is a programming error. */
  add(method: HttpMethod, pattern: string, value: T): void {
    let node = this.#root;
    for (const segment of pattern.slice(1).split('/')) {
      if (segment.startsWith('{')) {
        const name = segment.slice(1, -1);
        if (node.param && node.param.name !== name) {
          throw new TypeError(`route ${method} ${pattern}: parameter {${name}} conflicts with {${node.param.name}}`);
        }
        node.param ??= { name, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.literal.get(segment);
        if (!next) node.literal.set(segment, (next = newNode()));
        node = next;
      }
    }
    if (node.methods.has(method)) throw new TypeError(`route ${method} ${pattern}: added twice`);
    node.methods.set(method, value);
  }

  /** Matches a raw (still percent-encoded) request path. */
  match(method: HttpMethod | string, path: string): RouteMatch<T> {
    if (!path.startsWith('/')) return { kind: 'not_found' };
    const segments = path.slice(1).split('/');
    const params: string[] = [];
    const allow = new Set<HttpMethod>();
    const found = this.#walk(this.#root, segments, 0, method as HttpMethod, params, allow);
    if (found) {
      const named: Record<string, string> = {};
      try {
        for (let i = 0; i < found.names.length; i += 1) {
          named[found.names[i] as string] = decodeURIComponent(params[i] as string);
        }
      } catch {
        return { kind: 'bad_path' };
      }
      return { kind: 'found', value: found.value, params: named };
    }
    if (allow.size > 0) return { kind: 'method_not_allowed', allow: [...allow].sort() };
    return { kind: 'not_found' };
  }

  #walk(
    node: TrieNode<T>,
    segments: readonly string[],
    depth: number,
    method: HttpMethod,
    params: string[],
    allow: Set<HttpMethod>,
  ): { value: T; names: string[] } | undefined {
    if (depth === segments.length) {
      const value = node.methods.get(method);
      if (value !== undefined) return { value, names: [] };
      for (const m of node.methods.keys()) allow.add(m);
      return undefined;
    }
    const segment = segments[depth] as string;
    if (segment === '') return undefined;
    const literal = node.literal.get(segment);
    if (literal) {
      const found = this.#walk(literal, segments, depth + 1, method, params, allow);
      if (found) return found;
    }
    if (node.param) {
      params.push(segment);
      const found = this.#walk(node.param.node, segments, depth + 1, method, params, allow);
      if (found) {
        found.names.unshift(node.param.name);
        return found;
      }
      params.pop();
    }
    return undefined;
  }
}
