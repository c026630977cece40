import type { Step } from '../types.js';

/** API answers are never cached by intermediaries nor sniffed into another content type. */
export function securityHeaders(): Step {
  return function securityHeadersStep(ctx, next) {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-store');
    return next();
  };
}
