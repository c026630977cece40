import { setResponseHeader } from '../response-header.js';
import type { Step } from '../types.js';

/** API answers are never cached by intermediaries nor sniffed into another content type. */
export const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Cache-Control', 'no-store'],
];

export function securityHeaders(): Step {
  return function securityHeadersStep(ctx) {
    for (const [name, value] of SECURITY_HEADERS) setResponseHeader(ctx, name, value);
  };
}
