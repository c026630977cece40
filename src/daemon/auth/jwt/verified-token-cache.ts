import type { Principal } from '../../../shared/auth/principal.js';

interface Entry {
  readonly principal: Principal;
  /** Until when the token is accepted: its exp plus the clock skew, in epoch ms. */
  readonly acceptUntil: number;
}

/**
 * Principals of tokens already verified, keyed by a digest of the token (never the token itself),
 * bounded in size (least recently used out first) and never serving a token past its expiry.
 */
export class VerifiedTokenCache {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 10_000) {}

  get(digest: string, now = Date.now()): Principal | undefined {
    const entry = this.#entries.get(digest);
    if (!entry) return undefined;
    this.#entries.delete(digest);
    if (entry.acceptUntil <= now) return undefined;
    this.#entries.set(digest, entry);
    return entry.principal;
  }

  set(digest: string, principal: Principal, acceptUntil: number): void {
    if (this.maxEntries === 0) return;
    this.#entries.delete(digest);
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(digest, { principal, acceptUntil });
  }

  get size(): number {
    return this.#entries.size;
  }
}
