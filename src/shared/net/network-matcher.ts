import ipaddr from 'ipaddr.js';
import { parseAllowListEntry } from '../webhooks/allow-list-rules.js';

/**
 * Matching an address against a list of networks (CIDR blocks or single addresses, as a webhook's
 * `allowed_source_ips` or SERVICE_OUTBOUND_ALLOWED_NETWORKS are written). Shared: the daemon matches
 * callers with it, and the outbound guard (daemon and worker) the targets it may reach.
 */
export interface SourceMatcher {
  allows(clientIp: string): boolean;
}

const ALLOW_ALL: SourceMatcher = { allows: () => true };

/**
 * A matcher over checked entries. IPv4-mapped IPv6 blocks (`::ffff:10.1.2.0/120`) are kept as the IPv4
 * block they stand for, and an IPv4-mapped caller is matched as IPv4, so each family is compared
 * once; an IPv4 caller is still compared, in its mapped form, against wider IPv6 blocks (`::/0`).
 */
export function compileAllowList(entries: readonly string[] | null): SourceMatcher {
  if (entries === null) return ALLOW_ALL;
  const v4: [ipaddr.IPv4, number][] = [];
  const v6: [ipaddr.IPv6, number][] = [];
  for (const entry of entries) {
    const result = parseAllowListEntry(entry.trim());
    // Rows are checked on write; one written out of band that does not parse allows nobody (fails closed).
    if ('message' in result) continue;
    const [address, bits] = result.network;
    if (address.kind() === 'ipv4') v4.push([address as ipaddr.IPv4, bits]);
    else if ((address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) v4.push([(address as ipaddr.IPv6).toIPv4Address(), bits - 96]);
    else v6.push([address as ipaddr.IPv6, bits]);
  }
  return {
    allows(clientIp: string): boolean {
      if (!ipaddr.isValid(clientIp)) return false;
      const caller = ipaddr.process(clientIp);
      if (caller.kind() === 'ipv4') {
        const ip4 = caller as ipaddr.IPv4;
        if (v4.some((range) => ip4.match(range))) return true;
        if (v6.length === 0) return false;
        const mapped = ip4.toIPv4MappedAddress();
        return v6.some((range) => mapped.match(range));
      }
      const ip6 = caller as ipaddr.IPv6;
      return v6.some((range) => ip6.match(range));
    },
  };
}

/** A comma-separated list of networks as a setting is written (empty gives none), or why an entry is not one. */
export function readNetworkList(raw: string): { readonly entries: string[] } | { readonly message: string } {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const result = parseAllowListEntry(entry);
    if ('message' in result) return { message: result.message };
  }
  return { entries };
}
