import ipaddr from 'ipaddr.js';
import { compileAllowList, type SourceMatcher } from './network-matcher.js';

/**
 * Which addresses an outbound request may connect to. Only addresses ipaddr.js calls `unicast` (public)
 * pass by default: loopback, private (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud metadata
 * endpoint, fe80::/10), carrier-grade NAT, unspecified, multicast, broadcast, reserved and the v6 forms
 * that embed a v4 address (6to4, Teredo, NAT64) are refused unless a network of the allow-list holds them.
 * An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export class AddressPolicy {
  readonly #allowed: SourceMatcher;

  constructor(allowedNetworks: readonly string[]) {
    this.#allowed = compileAllowList(allowedNetworks);
  }

  /** True when a connection to `address` (an IP literal) may be made. */
  allows(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.process(address);
    if (parsed.range() === 'unicast') return true;
    return this.#allowed.allows(parsed.toString());
  }
}
