import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { maskAddress } from '../http/client-address.js';

/**
 * `allowed_source_ips`: CIDR blocks or bare addresses, IPv4 and IPv6. Parsing is strict where
 * ipaddr.js is lenient (it reads `10.1` as 10.0.0.1 and `010.1.2.3` as octal), because an allow-list
 * entry that means something else than it reads is a hole.
 */

export const MAX_ALLOW_LIST_ENTRIES = 1000;

export interface AllowListIssue {
  /** Index path inside the list, e.g. `[2]` (validate's format once prefixed with the field name). */
  readonly path: (string | number)[];
  readonly message: string;
}

type Network = readonly [ipaddr.IPv4 | ipaddr.IPv6, number];

const PREFIX = /^(?:0|[1-9][0-9]{0,2})$/;

function parseEntry(text: string): { network: Network } | { message: string } {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? undefined : text.slice(slash + 1);
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) parsed = ipaddr.IPv4.parse(address);
  else if (!address.includes('%') && ipaddr.IPv6.isValid(address)) parsed = ipaddr.IPv6.parse(address);
  else return { message: `"${text}" is not an IPv4 or IPv6 address or CIDR block` };
  const max = parsed.kind() === 'ipv4' ? 32 : 128;
  if (prefixText === undefined) return { network: [parsed, max] };
  if (!PREFIX.test(prefixText) || Number(prefixText) > max) return { message: `"${text}" has a prefix length outside 0-${max}` };
  const bits = Number(prefixText);
  const network = networkOf(parsed, bits);
  if (network.toString() !== parsed.toString()) {
    return { message: `"${text}" has host bits set; the block is ${network.toString()}/${bits}` };
  }
  return { network: [parsed, bits] };
}

function networkOf(address: ipaddr.IPv4 | ipaddr.IPv6, bits: number): ipaddr.IPv4 | ipaddr.IPv6 {
  const bytes = address.toByteArray().map((byte, i) => {
    const keep = Math.min(8, Math.max(0, bits - i * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  return ipaddr.fromByteArray(bytes);
}

/**
 * Checks a list as sent on create or update. `null` removes the allow-list; an empty list is refused
 * rather than read as "nobody" (use `enabled: false`) or as "everybody" (send null): either reading
 * would surprise half of the people who send it.
 */
export function parseAllowList(list: unknown): { ok: true; entries: string[] | null } | { ok: false; issues: AllowListIssue[] } {
  if (list === null || list === undefined) return { ok: true, entries: null };
  if (!Array.isArray(list)) return { ok: false, issues: [{ path: [], message: 'must be an array of CIDR blocks or addresses, or null' }] };
  if (list.length === 0)
    return { ok: false, issues: [{ path: [], message: 'must not be empty: send null for no restriction, or disable the endpoint' }] };
  if (list.length > MAX_ALLOW_LIST_ENTRIES)
    return { ok: false, issues: [{ path: [], message: `must have at most ${MAX_ALLOW_LIST_ENTRIES} entries` }] };
  const issues: AllowListIssue[] = [];
  const entries: string[] = [];
  list.forEach((entry: unknown, index) => {
    if (typeof entry !== 'string') return void issues.push({ path: [index], message: 'must be a string' });
    const result = parseEntry(entry.trim());
    if ('message' in result) issues.push({ path: [index], message: result.message });
    else entries.push(entry.trim());
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, entries };
}

/**
 * The zod form of `parseAllowList` for create/update schemas (wrap in `.optional()`): issues land on
 * `allowed_source_ips[i]`, entries come out trimmed, and the JSON schema stays "array of strings or null".
 */
export const allowedSourceIpsSchema = z
  .array(z.string())
  .nullable()
  .superRefine((value, ctx) => {
    const result = parseAllowList(value);
    if (!result.ok) for (const issue of result.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  })
  .overwrite((value) => value && value.map((entry) => entry.trim()));

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
    const result = parseEntry(entry.trim());
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
