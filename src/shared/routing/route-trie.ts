import type { HttpMethod } from '../catalogue/types.js';

/**
 * A segment trie over route patterns. Matching walks the request path once, trying a literal segment
 * before a `{param}` at each level, so its cost depends on the path's depth, not on how many routes
 * exist (a flat router tests every pattern in turn).
 */
interface TrieNode<T> {
  readonly literal: Map<string, TrieNode<T>>;
  param?: TrieNode<T>;
  /** Per method: the value, and the names of the pattern's parameters in path order. */
  readonly methods: Map<HttpMethod, Leaf<T>>;
}

interface Leaf<T> {
  readonly value: T;
  readonly names: readonly string[];
}

export type RouteMatch<T> =
  | { readonly kind: 'found'; readonly value: T; readonly params: Record<string, string> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly HttpMethod[] }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'bad_path' };

function newNode<T>(): TrieNode<T> {
  return { literal: new Map(), methods: new Map() };
}

const NOT_FOUND = { kind: 'not_found' } as const;
const BAD_PATH = { kind: 'bad_path' } as const;

export class RouteTrie<T> {
  readonly #root: TrieNode<T> = newNode();
  /** Which name each parameter position of a node has, to refuse `{a}` and `{b}` at one place. */
  readonly #paramNames = new WeakMap<TrieNode<T>, string>();

  /** Adds `method pattern`; a pattern is `/a/{b}/c`. Two values for one method + pattern is a programming error. */
  add(method: HttpMethod, pattern: string, value: T): void {
    let node = this.#root;
    const names: string[] = [];
    for (const segment of pattern.slice(1).split('/')) {
      if (segment.startsWith('{')) {
        const name = segment.slice(1, -1);
        const taken = node.param && this.#paramNames.get(node.param);
        if (taken !== undefined && taken !== name) {
          throw new TypeError(`route ${method} ${pattern}: parameter {${name}} conflicts with {${taken}}`);
        }
        if (!node.param) {
          node.param = newNode();
          this.#paramNames.set(node.param, name);
        }
        names.push(name);
        node = node.param;
      } else {
        let next = node.literal.get(segment);
        if (!next) node.literal.set(segment, (next = newNode()));
        node = next;
      }
    }
    if (node.methods.has(method)) throw new TypeError(`route ${method} ${pattern}: added twice`);
    node.methods.set(method, { value, names });
  }

  /**
   * Matches a raw (still percent-encoded) request path. A hit allocates only its answer: the methods a
   * path allows are gathered by a second walk, on a miss alone.
   */
  match(method: HttpMethod | string, path: string): RouteMatch<T> {
    if (path.charCodeAt(0) !== 47 /* / */) return NOT_FOUND;
    const segments = path.slice(1).split('/');
    const params: string[] = [];
    const leaf = this.#walk(this.#root, segments, 0, method as HttpMethod, params);
    if (leaf) {
      const named: Record<string, string> = {};
      for (let i = 0; i < leaf.names.length; i += 1) {
        const raw = params[i]!;
        if (!raw.includes('%')) {
          named[leaf.names[i]!] = raw;
          continue;
        }
        try {
          named[leaf.names[i]!] = decodeURIComponent(raw);
        } catch {
          return BAD_PATH;
        }
      }
      return { kind: 'found', value: leaf.value, params: named };
    }
    const allow = new Set<HttpMethod>();
    this.#allowed(this.#root, segments, 0, allow);
    if (allow.size > 0) return { kind: 'method_not_allowed', allow: [...allow].sort() };
    return NOT_FOUND;
  }

  /** The leaf for `method`, a literal segment tried before a parameter at each level; `params` gets the parameters' raw values. */
  #walk(node: TrieNode<T>, segments: readonly string[], depth: number, method: HttpMethod, params: string[]): Leaf<T> | undefined {
    if (depth === segments.length) return node.methods.get(method);
    const segment = segments[depth]!;
    if (segment === '') return undefined;
    const literal = node.literal.get(segment);
    if (literal) {
      const found = this.#walk(literal, segments, depth + 1, method, params);
      if (found) return found;
    }
    if (node.param) {
      params.push(segment);
      const found = this.#walk(node.param, segments, depth + 1, method, params);
      if (found) return found;
      params.pop();
    }
    return undefined;
  }

  /** Every method of every route the path matches, whatever the method. */
  #allowed(node: TrieNode<T>, segments: readonly string[], depth: number, allow: Set<HttpMethod>): void {
    if (depth === segments.length) {
      for (const m of node.methods.keys()) allow.add(m);
      return;
    }
    const segment = segments[depth]!;
    if (segment === '') return;
    const literal = node.literal.get(segment);
    if (literal) this.#allowed(literal, segments, depth + 1, allow);
    if (node.param) this.#allowed(node.param, segments, depth + 1, allow);
  }
}
