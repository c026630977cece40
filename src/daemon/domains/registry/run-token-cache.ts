import { createHash } from 'node:crypto';
import { NotifiedCache } from '../../db/notified-cache.js';
import type { RunTokenGrant } from '../run-tokens/run-token-verifier.js';

export interface RunTokenCheck {
  verify(token: string): Promise<RunTokenGrant | undefined>;
}

/**
 * Verified run tokens by digest, so a registry pull's many requests cost one query: kept until the
 * token's expiry at most, and dropped all together on `invalidate` (a token revoked, its step or run
 * ended: the `svc_run_tokens` notification, and the revoking instance itself after its commit). Misses
 * are not kept: a token minted a moment later is seen at once.
 */
export class CachedRunTokens {
  readonly #cache: NotifiedCache<RunTokenGrant>;

  constructor(
    private readonly check: RunTokenCheck,
    options: { ttlMs: number; maxEntries?: number },
    private readonly now: () => number = Date.now,
  ) {
    this.#cache = new NotifiedCache({ ttlMs: options.ttlMs, maxEntries: options.maxEntries ?? 10_000 });
  }

  /** The grant of a live token: at once when cached, else after the check's query. */
  verify(token: string): RunTokenGrant | undefined | Promise<RunTokenGrant | undefined> {
    const digest = createHash('sha256').update(token).digest('base64url');
    const cached = this.#cache.get(digest);
    if (cached !== undefined && cached.expiresAt.getTime() > this.now()) return cached;
    const generation = this.#cache.generation;
    return this.check.verify(token).then((grant) => {
      if (grant !== undefined) this.#cache.set(digest, grant, generation);
      return grant;
    });
  }

  invalidate(): void {
    this.#cache.invalidate();
  }
}
