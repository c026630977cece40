/**
 * In-memory token buckets for the webhook limits (global ingress, per-endpoint ingress, per-endpoint
 * delivery). Per instance and reset on restart, as the spec says; they run before any query, so a
 * take is a few arithmetic operations and, in the registry, one Map lookup.
 */

/** Milliseconds from any fixed origin; monotonic by default so a wall-clock step neither refills nor starves. */
export type Clock = () => number;

export type TakeResult = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

const MS_PER_MINUTE = 60_000;
const monotonic: Clock = () => performance.now();

/**
 * Capacity = the per-minute rate; refill is continuous at rate/60 tokens per second. Tokens are
 * counted in units of 1/60000 token (one per millisecond at a rate of one a minute), so with a clock
 * of whole milliseconds the arithmetic is exact integers and "capacity, then one more after exactly
 * 60000/rate ms" holds without rounding drift.
 */
export class TokenBucket {
  readonly #capacity: number;
  #units: number;
  #last: number;

  constructor(
    readonly ratePerMinute: number,
    private readonly now: Clock = monotonic,
  ) {
    if (!Number.isFinite(ratePerMinute) || ratePerMinute <= 0)
      throw new TypeError(`a token bucket needs a positive rate, not ${ratePerMinute}`);
    this.#capacity = ratePerMinute * MS_PER_MINUTE;
    this.#units = this.#capacity;
    this.#last = now();
  }

  take(): TakeResult {
    const now = this.now();
    // A clock that goes backwards (an injected one, or a VM migration) refills nothing.
    const elapsed = Math.max(0, now - this.#last);
    this.#last = now;
    this.#units = Math.min(this.#capacity, this.#units + elapsed * this.ratePerMinute);
    if (this.#units >= MS_PER_MINUTE) {
      this.#units -= MS_PER_MINUTE;
      return { ok: true };
    }
    const waitMs = (MS_PER_MINUTE - this.#units) / this.ratePerMinute;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** Returns a token taken for work that turned out not to be metered (never beyond capacity). */
  giveBack(): void {
    this.#units = Math.min(this.#capacity, this.#units + MS_PER_MINUTE);
  }
}

export const DEFAULT_REGISTRY_CAP = 100_000;

/**
 * One bucket per key (an endpoint id), least recently used evicted beyond `maxEntries`, so a scan of
 * path tokens cannot grow memory without bound. An evicted key comes back with a full bucket: keep the
 * cap well above the number of endpoints busy within a minute. A new rate (the endpoint was edited)
 * starts a new, full bucket.
 */
export class TokenBucketRegistry {
  readonly #buckets = new Map<string, TokenBucket>();
  readonly #maxEntries: number;
  readonly #now: Clock;

  constructor(options: { readonly maxEntries?: number; readonly now?: Clock } = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_REGISTRY_CAP;
    this.#now = options.now ?? monotonic;
    if (!Number.isInteger(this.#maxEntries) || this.#maxEntries < 1)
      throw new TypeError(`maxEntries must be a positive integer, not ${this.#maxEntries}`);
  }

  take(key: string, ratePerMinute: number): TakeResult {
    let bucket = this.#buckets.get(key);
    if (bucket !== undefined) this.#buckets.delete(key);
    if (bucket === undefined || bucket.ratePerMinute !== ratePerMinute) bucket = new TokenBucket(ratePerMinute, this.#now);
    // Re-inserting moves the key to the end: Map order is then least to most recently used.
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > this.#maxEntries) this.#buckets.delete(this.#buckets.keys().next().value!);
    return bucket.take();
  }

  /** Returns a token to the key's bucket, if it still has one. */
  giveBack(key: string): void {
    this.#buckets.get(key)?.giveBack();
  }

  /** Forget a key (endpoint deleted); its next request starts full. */
  delete(key: string): void {
    this.#buckets.delete(key);
  }

  get size(): number {
    return this.#buckets.size;
  }

  has(key: string): boolean {
    return this.#buckets.has(key);
  }
}
