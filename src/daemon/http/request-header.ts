import type { AppContext } from './types.js';

/**
 * A request header by its lower-case name, or '' (as `ctx.get` answers), read straight from Node's
 * parsed headers: `ctx.get` lower-cases the name and switches over special names on every call, which
 * the request path would pay several times per request.
 */
export function requestHeader(ctx: AppContext, lowerCaseName: string): string {
  const value = ctx.req.headers[lowerCaseName];
  return typeof value === 'string' ? value : '';
}
