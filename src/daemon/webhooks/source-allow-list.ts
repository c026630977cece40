import ipaddr from 'ipaddr.js';
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

export { compileAllowList, type SourceMatcher } from '../../shared/net/network-matcher.js';

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
