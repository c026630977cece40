import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { problems } from '../../http/problem.js';

export interface KeySourceOptions {
  readonly issuer: string;
  readonly cacheSeconds: number;
  readonly timeoutMs: number;
  readonly minRefreshSeconds: number;
}

/** How long to wait after a failed discovery before asking the provider again. */
const DISCOVERY_RETRY_MS = 5000;

/**
 * The identity provider's signing keys: the JWKS URL from OpenID discovery, then jose's remote key set
 * (cached for SERVICE_IDP_JWKS_CACHE_TTL, refetched on an unknown key id at most every
 * SERVICE_IDP_JWKS_MIN_REFRESH_SECONDS). A provider
 * that cannot be reached or answers garbage makes this throw `auth_unavailable`, within the timeout.
 */
export class KeySource {
  #keys: JWTVerifyGetKey | undefined;
  #pending: Promise<JWTVerifyGetKey> | undefined;
  #failedAt = 0;

  constructor(private readonly options: KeySourceOptions) {}

  async resolver(): Promise<JWTVerifyGetKey> {
    if (this.#keys) return this.#keys;
    if (Date.now() - this.#failedAt < DISCOVERY_RETRY_MS) throw problems.authUnavailable();
    this.#pending ??= this.#discover().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #discover(): Promise<JWTVerifyGetKey> {
    const url = `${this.options.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.options.timeoutMs), redirect: 'error' });
      if (!response.ok) throw new Error(`discovery answered ${response.status}`);
      const document = (await response.json()) as { jwks_uri?: unknown };
      if (typeof document.jwks_uri !== 'string') throw new Error('discovery document has no jwks_uri');
      this.#keys = createRemoteJWKSet(new URL(document.jwks_uri), {
        cacheMaxAge: this.options.cacheSeconds * 1000,
        cooldownDuration: this.options.minRefreshSeconds * 1000,
        timeoutDuration: this.options.timeoutMs,
      });
      return this.#keys;
    } catch {
      this.#failedAt = Date.now();
      throw problems.authUnavailable();
    }
  }
}
