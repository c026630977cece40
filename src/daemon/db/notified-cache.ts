export interface NotifiedCacheOptions {
  /** Beyond this many entries the cache starts over (a burst of misses, never unbounded memory). */
  readonly maxEntries?: number;
  /** Backstop only: every change invalidates at once, this bounds what a lost invalidation could cost. */
  readonly ttlMs?: number;
}

/**
 * Rows copied out of the database and kept until the next change to what they were read from, rather
 * than for a timeout: writers on this instance invalidate after their commit, and a NOTIFY sent by
 * database triggers brings everyone else's changes (see ReloadTriggers). A read that raced with an
 * invalidation must not store what it read: callers take `generation` before their query and hand it
 * to `set`, which drops the answer if an invalidation came in between. Misses are not cached.
 */
export class NotifiedCache<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  #generation = 0;

  constructor(options: NotifiedCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 50_000;
    this.#ttlMs = options.ttlMs ?? 30_000;
  }

  get generation(): number {
    return this.#generation;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached value, or undefined when nothing (current) is cached. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores what a query begun at `generation` answered, unless an invalidation has happened since. */
  set(key: string, value: V, generation: number): void {
    if (generation !== this.#generation) return;
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
    this.#entries.set(key, { value, until: Date.now() + this.#ttlMs });
  }

  /**
   * The cached value, or `load()`'s answer stored for next time (unless an invalidation raced with it);
   * `load` answering undefined stores nothing.
   */
  async through(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const generation = this.#generation;
    const loaded = await load();
    if (loaded !== undefined) this.set(key, loaded, generation);
    return loaded;
  }

  invalidate(): void {
    this.#generation += 1;
    this.#entries.clear();
  }
}

/** Caches emptied together: the ones one NOTIFY channel and one set of writers stand for. */
export class CacheGroup {
  readonly #members: { invalidate(): void }[] = [];

  add<C extends { invalidate(): void }>(cache: C): C {
    this.#members.push(cache);
    return cache;
  }

  invalidate(): void {
    for (const member of this.#members) member.invalidate();
  }
}
