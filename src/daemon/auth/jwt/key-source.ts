import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { authProblems } from '../auth-problems.js';
import type { Logger } from '../../logging/logger.js';

export interface KeySourceOptions {
  readonly issuer: string;
  /** The issuer as browsers see it (SERVICE_IDP_PUBLIC_ISSUER): a provider behind a proxy may name itself so. */
  readonly publicIssuer?: string | undefined;
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

  constructor(
    private readonly options: KeySourceOptions,
    private readonly log: Logger,
  ) {}

  async resolver(): Promise<JWTVerifyGetKey> {
    if (this.#keys) return this.#keys;
    if (Date.now() - this.#failedAt < DISCOVERY_RETRY_MS) throw authProblems.authUnavailable();
    this.#pending ??= this.#discover().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  /**
   * Whether the provider's keys are at hand, as token verification would find them (platform health): keys
   * already discovered answer at once, a discovery that failed within the retry pause fails without asking
   * again, else one discovery within the time limit. Never more requests than verification makes.
   */
  async ready(): Promise<void> {
    await this.resolver();
  }

  async #discover(): Promise<JWTVerifyGetKey> {
    const url = `${this.options.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.options.timeoutMs), redirect: 'error' });
      if (!response.ok) throw new Error(`discovery answered ${response.status}`);
      const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      // OpenID Connect Discovery 4.3: a document naming another issuer is not this provider's, and its
      // jwks_uri must not be trusted.
      if (!this.#isConfiguredIssuer(document.issuer))
        throw new Error(`discovery document names the issuer ${JSON.stringify(document.issuer)}, not the configured one`);
      if (typeof document.jwks_uri !== 'string') throw new Error('discovery document has no jwks_uri');
      this.#keys = createRemoteJWKSet(new URL(document.jwks_uri), {
        cacheMaxAge: this.options.cacheSeconds * 1000,
        cooldownDuration: this.options.minRefreshSeconds * 1000,
        timeoutDuration: this.options.timeoutMs,
      });
      return this.#keys;
    } catch (error) {
      this.#failedAt = Date.now();
      this.log.error({ err: error, discovery: url }, 'identity provider keys unavailable: tokens cannot be verified');
      throw authProblems.authUnavailable();
    }
  }

  /** Equal to SERVICE_IDP_ISSUER or SERVICE_IDP_PUBLIC_ISSUER, a trailing slash aside. */
  #isConfiguredIssuer(issuer: unknown): boolean {
    if (typeof issuer !== 'string') return false;
    const bare = (url: string) => url.replace(/\/$/, '');
    return (
      bare(issuer) === bare(this.options.issuer) ||
      (this.options.publicIssuer !== undefined && bare(issuer) === bare(this.options.publicIssuer))
    );
  }
}
