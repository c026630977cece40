import type { Services } from '../../services.js';
import type { ProviderFetch } from './provider-http.js';

/**
 * The providers' door to the network: the shared outbound guard (only http(s), every resolved address
 * checked against SERVICE_OUTBOUND_ALLOWED_NETWORKS' exceptions, one time limit, a size cap, no redirect
 * followed: a provider answering 3xx is an error, never a hop to somewhere unchecked with the token).
 */
export function providerFetch(services: Services): ProviderFetch {
  return (url, request) => services.outbound.request(url, request);
}
