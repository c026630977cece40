import type { AppContext } from './types.js';

/**
 * Sets a response header as `ctx.set` does for one string value (nothing once the headers are sent), but
 * straight on Node's response: Koa's `set` builds arrays and closures around every call, which the
 * request path would pay several times per request.
 */
export function setResponseHeader(ctx: AppContext, name: string, value: string): void {
  if (!ctx.res.headersSent) ctx.res.setHeader(name, value);
}
