import type { OutboundSend } from './outbound.js';

/**
 * Stand-in for the shared outbound guard until it is on this branch: a POST with a time limit and no
 * redirect followed. It checks no address; the guard replaces it in one line of the composition root.
 */
export function fetchOutbound(timeoutMs: number): OutboundSend {
  return async (url, request) => {
    const response = await fetch(url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, text: () => response.text() };
  };
}
