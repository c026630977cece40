import { NotifiedCache, type NotifiedCacheOptions } from '../db/notified-cache.js';

export type MembershipCacheOptions = NotifiedCacheOptions;

/**
 * Roles of callers in organizations, (org_id, sub) -> role, or null for "not a member, or the user is
 * inactive". Invalidated whole by every membership or user-activity change (MembershipSync brings those
 * of other instances); `generation` and `set` work as in NotifiedCache.
 */
export class MembershipCache {
  readonly #cache: NotifiedCache<string | null>;

  constructor(options: MembershipCacheOptions = {}) {
    this.#cache = new NotifiedCache(options);
  }

  get generation(): number {
    return this.#cache.generation;
  }

  get size(): number {
    return this.#cache.size;
  }

  /** The cached role, null for a cached non-member, undefined when nothing (current) is cached. */
  get(orgId: string, sub: string): string | null | undefined {
    return this.#cache.get(keyOf(orgId, sub));
  }

  /** Stores what a query begun at `generation` answered, unless an invalidation has happened since. */
  set(orgId: string, sub: string, role: string | null, generation: number): void {
    this.#cache.set(keyOf(orgId, sub), role, generation);
  }

  invalidate(): void {
    this.#cache.invalidate();
  }
}

// Organization ids are UUIDs (fixed length, no spaces), so the pair cannot be ambiguous.
function keyOf(orgId: string, sub: string): string {
  return `${orgId} ${sub}`;
}
