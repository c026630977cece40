export interface MembershipCacheOptions {
  /** Beyond this many entries the cache starts over (a burst of misses, never unbounded memory). */
  readonly maxEntries?: number;
  /** Backstop only: every write invalidates at once, this bounds what a lost invalidation could cost. */
  readonly ttlMs?: number;
}

/**
 * Roles of callers in organizations, (org_id, sub) -> role, or null for "not a member, or the user is
 * inactive". Invalidated whole by every membership or user-activity change (MembershipSync brings those
 * of other instances). A read that raced with an invalidation must not store what it read: callers take
 * `generation` before their query and hand it to `set`, which drops the answer if an invalidation came
 * in between.
 */
export class MembershipCache {
  readonly #entries = new Map<string, { role: string | null; until: number }>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  #generation = 0;

  constructor(options: MembershipCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 50_000;
    this.#ttlMs = options.ttlMs ?? 30_000;
  }

  get generation(): number {
    return this.#generation;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached role, null for a cached non-member, undefined when nothing (current) is cached. */
  get(orgId: string, sub: string): string | null | undefined {
    const key = keyOf(orgId, sub);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.role;
  }

  /** Stores what a query begun at `generation` answered, unless an invalidation has happened since. */
  set(orgId: string, sub: string, role: string | null, generation: number): void {
    if (generation !== this.#generation) return;
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
    this.#entries.set(keyOf(orgId, sub), { role, until: Date.now() + this.#ttlMs });
  }

  invalidate(): void {
    this.#generation += 1;
    this.#entries.clear();
  }
}

// Organization ids are UUIDs (fixed length, no spaces), so the pair cannot be ambiguous.
function keyOf(orgId: string, sub: string): string {
  return `${orgId} ${sub}`;
}
