import { describe, expect, it } from 'vitest';
import { resolveClientAddress } from '../src/daemon/http/client-address.js';
import { maskAddress } from '../src/shared/net/mask-address.js';

describe('the client address', () => {
  it('is the socket peer unless proxy headers are trusted', () => {
    expect(resolveClientAddress('::ffff:127.0.0.1', '203.0.113.9', false)).toBe('127.0.0.1');
    expect(resolveClientAddress('10.0.0.1', '203.0.113.9, 10.0.0.1', true)).toBe('203.0.113.9');
  });

  it('falls back to the peer when the first forwarded hop is not an address', () => {
    expect(resolveClientAddress('10.0.0.1', 'evil, 203.0.113.9', true)).toBe('10.0.0.1');
  });

  it('masks the host part', () => {
    expect(maskAddress('203.0.113.9')).toBe('203.0.113.0');
    expect(maskAddress('2001:db8:1234:5678::1')).toBe('2001:db8:1234::');
  });
});

describe('the canonical form of an address', () => {
  it('keeps plain IPv4, unwraps IPv4-mapped IPv6, and compresses IPv6', () => {
    expect(resolveClientAddress('10.1.2.3', undefined, false)).toBe('10.1.2.3');
    expect(resolveClientAddress('::FFFF:10.1.2.3', undefined, false)).toBe('10.1.2.3');
    expect(resolveClientAddress('2001:0db8:0000:0000:0000:0000:0000:0001', undefined, false)).toBe('2001:db8::1');
    expect(resolveClientAddress('10.1.2.300', undefined, false)).toBe('unknown');
  });
});
