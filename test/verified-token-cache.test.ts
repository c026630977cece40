import { describe, expect, it } from 'vitest';
import { DEV_PRINCIPAL } from '../src/shared/auth/principal.js';
import { VerifiedTokenCache } from '../src/daemon/auth/jwt/verified-token-cache.js';

describe('the verified-token cache', () => {
  it('never serves a token past its acceptance time', () => {
    const cache = new VerifiedTokenCache(10);
    cache.set('a', DEV_PRINCIPAL, 1000);
    expect(cache.get('a', 999)).toBe(DEV_PRINCIPAL);
    expect(cache.get('a', 1000)).toBeUndefined();
  });

  it('is bounded, dropping the least recently used first', () => {
    const cache = new VerifiedTokenCache(2);
    cache.set('a', DEV_PRINCIPAL, Infinity);
    cache.set('b', DEV_PRINCIPAL, Infinity);
    cache.get('a');
    cache.set('c', DEV_PRINCIPAL, Infinity);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(DEV_PRINCIPAL);
  });

  it('remembers nothing when its size is 0', () => {
    const cache = new VerifiedTokenCache(0);
    cache.set('a', DEV_PRINCIPAL, Infinity);
    expect(cache.get('a')).toBeUndefined();
  });
});

describe('seen login sessions', () => {
  it('report a session once, then not again, and forget the least recently seen when full', async () => {
    const { SeenSessions } = await import('../src/daemon/auth/jwt/seen-sessions.js');
    const seen = new SeenSessions(2);
    expect(seen.firstSight('a')).toBe(true);
    expect(seen.firstSight('a')).toBe(false);
    seen.firstSight('b');
    seen.firstSight('c');
    expect(seen.firstSight('a')).toBe(true);
  });
});
