import type { Services } from '../../services.js';
import type { ProviderFetch } from './provider-http.js';

/**
 * The providers' door to the network. Until the shared outbound guard is on main this is a bare fetch
 * with a time limit (no address rules): the switch to `services.outbound.request` is this one function.
 */
export function providerFetch(services: Services): ProviderFetch {
  const timeoutDefault = 10_000;
  void services;
  return async (url, request) => {
    const response = await fetch(url, {
      method: request.method ?? 'GET',
      headers: request.headers ?? {},
      signal: AbortSignal.timeout(request.timeoutMs ?? timeoutDefault),
      redirect: 'manual',
    });
    const headers = Object.fromEntries(response.headers.entries());
    return { status: response.status, headers, text: () => response.text() };
  };
}
