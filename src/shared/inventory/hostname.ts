import ipaddr from 'ipaddr.js';

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * A management address: an IPv4 address in dotted decimal, an IPv6 address (a zone such as `%eth0` is
 * allowed), or a DNS name (RFC 1123 labels, at most 253 characters, an optional final dot). IPv4 is
 * accepted only in its four-part decimal form: `10.1` or `0x0a.0.0.1` are valid to inet_aton but mean
 * something other than what they look like. A name whose last label is all digits is refused for the
 * same reason (`10.0.0.256` is a mistyped address, not a host name).
 */
export function isManagementAddress(value: string): boolean {
  if (ipaddr.IPv4.isValidFourPartDecimal(value) || ipaddr.IPv6.isValid(value)) return true;
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  if (!labels.every((label) => LABEL.test(label))) return false;
  return !/^\d+$/.test(labels[labels.length - 1]!);
}
