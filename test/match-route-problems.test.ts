import { describe, expect, it } from 'vitest';
import { Problem } from '../src/shared/api/problem.js';
import { RouteTrie } from '../src/shared/routing/route-trie.js';
import { matchRoute } from '../src/daemon/http/middleware/match-route.js';
import { problemBody } from '../src/daemon/http/middleware/problem-response.js';
import type { AppContext, MountedRoute } from '../src/daemon/http/types.js';

/** What the step throws for a request to `path`. */
function refusalOf(step: ReturnType<typeof matchRoute>, path: string): unknown {
  const ctx = { method: 'GET', path, state: {} } as unknown as AppContext;
  try {
    step(ctx);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the routing refusals', () => {
  const trie = new RouteTrie<MountedRoute>();
  trie.add('GET', '/runs/{run_id}', {} as MountedRoute);
  const step = matchRoute(trie);

  it('are made once per request path, not per request (a flood of unknown paths makes no Problem each)', () => {
    const first = refusalOf(step, '/no/such/path');
    expect(first).toBeInstanceOf(Problem);
    expect(first).toMatchObject({ status: 404, code: 'not_found' });
    expect(refusalOf(step, '/another/path')).toBe(first);
    const badPath = refusalOf(step, '/runs/%zz');
    expect(badPath).toMatchObject({ status: 400, code: 'invalid_path' });
    expect(refusalOf(step, '/runs/%zy')).toBe(badPath);
  });

  it('still answer each request with its own request id', () => {
    const notFound = refusalOf(step, '/no/such/path') as Problem;
    expect(JSON.parse(problemBody(notFound, 'req-1'))).toMatchObject({ status: 404, code: 'not_found', request_id: 'req-1' });
    expect(JSON.parse(problemBody(notFound, 'req-2'))).toMatchObject({ status: 404, code: 'not_found', request_id: 'req-2' });
  });
});
