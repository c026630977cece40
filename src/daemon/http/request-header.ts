import type { IncomingMessage } from 'node:http';
import type { AppContext } from './types.js';

/** A header of Node's request by its lower-case name, or '' when absent or repeated as an array. */
export function headerOf(req: IncomingMessage, lowerCaseName: string): string {
  const value = req.headers[lowerCaseName];
  return typeof value === 'string' ? value : '';
}

/**
 * A request header by its lower-case name, or '' (as `ctx.get` answers), read straight from Node's
 * parsed headers: `ctx.get` lower-cases the name and switches over special names on every call, which
 * the request path would pay several times per request.
 */
export function requestHeader(ctx: AppContext, lowerCaseName: string): string {
  return headerOf(ctx.req, lowerCaseName);
}
