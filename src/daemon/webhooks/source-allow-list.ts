import ipaddr from 'ipaddr.js';
import { parseAllowListEntry } from '../../shared/webhooks/allow-list-rules.js';
import { maskAddress } from '../../shared/net/mask-address.js';

/**
 * Matching callers against an endpoint's `allowed_source_ips`, and masking their address for the audit. The
 * rules of a list as sent live beside the endpoint's other field rules (src/shared/webhooks), where the API's
 * schemas use them; they stay importable from here, beside the matcher they feed.
 */
export {
  MAX_ALLOW_LIST_ENTRIES,
  allowedSourceIpsSchema,
  parseAllowList,
  type AllowListIssue,
} from '../../shared/webhooks/allow-list-rules.js';

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

/**
 * `source_ip_masked` of the trigger's audit entries: the last IPv4 octet zeroed, or the IPv6 /64. The
 * request path's `maskAddress` keeps an IPv6 /48 (its choice for anonymous callers); the webhook spec
 * asks for /64, so only the IPv4 half is shared. It parses the address (four times for IPv4): the
 * trigger remembers its answers.
 */
export function maskSourceIp(ip: string): string {
  if (!ipaddr.isValid(ip)) return 'unknown';
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return maskAddress(parsed.toString());
  const parts = (parsed as ipaddr.IPv6).parts;
  return new ipaddr.IPv6([parts[0]!, parts[1]!, parts[2]!, parts[3]!, 0, 0, 0, 0]).toString();
}
