import ipaddr from 'ipaddr.js';

/**
 * An address with its host part removed (IPv4 /24, IPv6 /48), for records of unauthenticated callers. A plain
 * function: whoever masks often (the audit writer) remembers its own answers.
 */
export function maskAddress(address: string): string {
  if (!ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') {
    const octets = (parsed as ipaddr.IPv4).octets;
    return `${octets[0]}.${octets[1]}.${octets[2]}.0`;
  }
  const parts = (parsed as ipaddr.IPv6).parts;
  return new ipaddr.IPv6([parts[0]!, parts[1]!, parts[2]!, 0, 0, 0, 0, 0]).toString();
}
