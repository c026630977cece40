import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../src/shared/catalogue/catalogue.js';
import { RouteTrie } from '../src/shared/routing/route-trie.js';

function catalogueTrie(): RouteTrie<string> {
  const trie = new RouteTrie<string>();
  for (const route of CATALOGUE.routes) trie.add(route.method, route.path, route.key);
  return trie;
}

describe('route matching', () => {
  const trie = catalogueTrie();

  it('finds every catalogue route by a concrete path', () => {
    for (const route of CATALOGUE.routes) {
      const concrete = route.path.replace(/\{[a-z_]+\}/g, 'v1');
      const match = trie.match(route.method, concrete);
      expect(match.kind, route.key).toBe('found');
      // A concrete value may legitimately hit a literal sibling; with a value no literal has, it is this route.
      if (match.kind === 'found' && !route.path.includes('{')) expect(match.value).toBe(route.key);
    }
  });

  it('prefers a literal segment over a parameter', () => {
    expect(trie.match('GET', '/runs/filter-options')).toMatchObject({ kind: 'found', value: 'GET /runs/filter-options' });
    expect(trie.match('GET', '/runs/42')).toMatchObject({ kind: 'found', value: 'GET /runs/{run_id}', params: { run_id: '42' } });
  });

  it('falls back to a parameter when the literal branch lacks the method', () => {
    // POST /files/{file_id}/download-url exists; GET of the same path is GET /files/{file_id}/{filename}.
    expect(trie.match('GET', '/files/f1/download-url')).toMatchObject({
      kind: 'found',
      value: 'GET /files/{file_id}/{filename}',
      params: { file_id: 'f1', filename: 'download-url' },
    });
  });

  it('lists the allowed methods when the path exists but the method does not', () => {
    expect(trie.match('PUT', '/runs')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'POST'] });
  });

  it('decodes parameters and refuses a malformed encoding', () => {
    expect(trie.match('GET', '/runs/a%2Fb')).toMatchObject({ kind: 'found', params: { run_id: 'a/b' } });
    expect(trie.match('GET', '/runs/%E0%A4%A')).toEqual({ kind: 'bad_path' });
  });

  it('does not match empty segments or trailing slashes', () => {
    expect(trie.match('GET', '/runs/')).toEqual({ kind: 'not_found' });
    expect(trie.match('GET', '//runs')).toEqual({ kind: 'not_found' });
    expect(trie.match('GET', '/nope')).toEqual({ kind: 'not_found' });
  });
});
