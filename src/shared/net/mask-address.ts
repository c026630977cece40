import ipaddr from 'ipaddr.js';
import { boundedMemo } from '../bounded-memo.js';

/**
 * An address with its host part removed (IPv4 /24, IPv6 /48), for records of unauthenticated callers.
 * Remembered per address: every audit entry of a public route (two per accepted webhook trigger) masks its
 * caller, and the parse is most of that work.
 */
export const maskAddress = boundedMemo(maskOnce, 1024);

function maskOnce(address: string): string {
  if (!ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') {
    const octets = (parsed as ipaddr.IPv4).octets;
    return `${octets[0]}.${octets[1]}.${octets[2]}.0`;
  }
  const parts = (parsed as ipaddr.IPv6).parts;
  return new ipaddr.IPv6([parts[0]!, parts[1]!, parts[2]!, 0, 0, 0, 0, 0]).toString();
}
