import { describe, expect, it } from 'vitest';
import { TokenBucket, TokenBucketRegistry } from '../src/daemon/webhooks/token-bucket.js';

/** A clock the test moves by hand, in milliseconds. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

const takeN = (take: () => { ok: boolean }, n: number) => Array.from({ length: n }, take).filter((r) => r.ok).length;

describe('TokenBucket', () => {
  it('accepts exactly its per-minute rate at once, then refuses', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(60, clock.now);
    expect(takeN(() => bucket.take(), 60)).toBe(60);
    expect(bucket.take()).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  it('refills one token every 60/rate seconds, continuously', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(60, clock.now);
    takeN(() => bucket.take(), 60);
    clock.advance(999);
    expect(bucket.take().ok).toBe(false);
    clock.advance(1);
    expect(bucket.take()).toEqual({ ok: true });
    expect(bucket.take().ok).toBe(false);
    clock.advance(2500);
    expect(takeN(() => bucket.take(), 3)).toBe(2);
  });

  it('never holds more than its capacity however long it idles', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(5, clock.now);
    clock.advance(3_600_000);
    expect(takeN(() => bucket.take(), 10)).toBe(5);
  });

  it('answers the whole seconds until the next token', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(1, clock.now);
    expect(bucket.take().ok).toBe(true);
    expect(bucket.take()).toEqual({ ok: false, retryAfterSeconds: 60 });
    clock.advance(59_001);
    expect(bucket.take()).toEqual({ ok: false, retryAfterSeconds: 1 });
    clock.advance(999);
    expect(bucket.take()).toEqual({ ok: true });

    const fast = new TokenBucket(600, clock.now);
    takeN(() => fast.take(), 600);
    expect(fast.take()).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  it('refills nothing when the clock goes backwards', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(60, clock.now);
    takeN(() => bucket.take(), 60);
    clock.advance(-10_000);
    expect(bucket.take().ok).toBe(false);
    clock.advance(1000);
    expect(bucket.take().ok).toBe(true);
  });

  it('takes back a token given back, never beyond its capacity', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(3, clock.now);
    bucket.giveBack();
    expect(takeN(() => bucket.take(), 4)).toBe(3);
    bucket.giveBack();
    expect(bucket.take().ok).toBe(true);
    expect(bucket.take().ok).toBe(false);
    const registry = new TokenBucketRegistry({ now: clock.now });
    expect(takeN(() => registry.take('e', 2), 2)).toBe(2);
    registry.giveBack('e');
    registry.giveBack('unknown');
    expect(registry.take('e', 2).ok).toBe(true);
    expect(registry.has('unknown')).toBe(false);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => new TokenBucket(0)).toThrow(TypeError);
    expect(() => new TokenBucket(Number.NaN)).toThrow(TypeError);
  });
});

describe('TokenBucketRegistry', () => {
  it('keeps one bucket per key', () => {
    const clock = manualClock();
    const registry = new TokenBucketRegistry({ now: clock.now });
    expect(takeN(() => registry.take('a', 3), 5)).toBe(3);
    expect(takeN(() => registry.take('b', 3), 5)).toBe(3);
    expect(registry.take('a', 3)).toEqual({ ok: false, retryAfterSeconds: 20 });
  });

  it("starts a new full bucket when the key's rate changes", () => {
    const clock = manualClock();
    const registry = new TokenBucketRegistry({ now: clock.now });
    takeN(() => registry.take('a', 2), 2);
    expect(registry.take('a', 2).ok).toBe(false);
    expect(takeN(() => registry.take('a', 4), 5)).toBe(4);
  });

  it('evicts the least recently used key beyond its cap', () => {
    const clock = manualClock();
    const registry = new TokenBucketRegistry({ maxEntries: 2, now: clock.now });
    registry.take('a', 1);
    registry.take('b', 1);
    registry.take('a', 1); // a is now the most recently used
    registry.take('c', 1);
    expect(registry.size).toBe(2);
    expect(registry.has('b')).toBe(false);
    expect(registry.has('a')).toBe(true);
    expect(registry.has('c')).toBe(true);
    // An evicted key starts over with a full bucket.
    expect(registry.take('b', 1).ok).toBe(true);
    expect(registry.has('a')).toBe(false);
  });

  it('forgets a deleted key', () => {
    const clock = manualClock();
    const registry = new TokenBucketRegistry({ now: clock.now });
    registry.take('a', 1);
    expect(registry.take('a', 1).ok).toBe(false);
    registry.delete('a');
    expect(registry.take('a', 1).ok).toBe(true);
  });

  it('holds a hundred thousand keys by default', () => {
    const registry = new TokenBucketRegistry({ now: manualClock().now });
    for (let i = 0; i <= 100_000; i++) registry.take(`endpoint-${i}`, 60);
    expect(registry.size).toBe(100_000);
    expect(registry.has('endpoint-0')).toBe(false);
    expect(registry.has('endpoint-100000')).toBe(true);
  });
});
