import { setResponseHeader } from '../response-header.js';
import type { Step } from '../types.js';

/** API answers are never cached by intermediaries nor sniffed into another content type. */
export function securityHeaders(): Step {
  return function securityHeadersStep(ctx) {
    setResponseHeader(ctx, 'X-Content-Type-Options', 'nosniff');
    setResponseHeader(ctx, 'Cache-Control', 'no-store');
  };
}
