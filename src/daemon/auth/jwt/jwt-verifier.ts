import { createHash } from 'node:crypto';
import { errors, jwtVerify } from 'jose';
import type { Principal } from '../../../shared/auth/principal.js';
import { Problem } from '../../../shared/api/problem.js';
import { authProblems } from '../auth-problems.js';
import type { Logger } from '../../logging/logger.js';
import { principalFromClaims } from './claims.js';
import { KeySource } from './key-source.js';
import { SeenSessions } from './seen-sessions.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

export const CLOCK_SKEW_SECONDS = 30;

export interface JwtVerifierOptions {
  readonly issuer: string;
  readonly publicIssuer?: string | undefined;
  readonly audience: string;
  readonly jwksCacheSeconds: number;
  readonly minRefreshSeconds: number;
  readonly fetchTimeoutMs: number;
  readonly cacheSize: number;
  /** The claim whose values drive IdP group sync (SERVICE_ORG_IDP_GROUP_CLAIM). */
  readonly groupClaim: string;
}

export interface VerifiedJwt {
  readonly principal: Principal;
  /** True on the first request of a login session seen by this instance: first-request work runs then. */
  readonly fresh: boolean;
  /** Values of the group claim, read on the first request of a session; `undefined` when the token lacks the claim. */
  readonly claimValues?: readonly string[] | undefined;
}

function claimValues(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Errors that mean "this token is bad", as opposed to "the keys could not be had". */
const TOKEN_FAULTS = [
  errors.JWTClaimValidationFailed,
  errors.JWSSignatureVerificationFailed,
  errors.JWSInvalid,
  errors.JWTInvalid,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
  errors.JWKInvalid,
];

/** RS256 access tokens of the configured identity provider, checked as the access-control spec says. */
export class JwtVerifier {
  readonly #keys: KeySource;
  readonly #cache: VerifiedTokenCache;
  readonly #sessions = new SeenSessions();
  readonly #issuers: string[];

  constructor(
    private readonly options: JwtVerifierOptions,
    private readonly log: Logger,
  ) {
    this.#keys = new KeySource(
      {
        issuer: options.issuer,
        publicIssuer: options.publicIssuer,
        cacheSeconds: options.jwksCacheSeconds,
        timeoutMs: options.fetchTimeoutMs,
        minRefreshSeconds: options.minRefreshSeconds,
      },
      log,
    );
    this.#cache = new VerifiedTokenCache(options.cacheSize);
    this.#issuers = options.publicIssuer ? [options.issuer, options.publicIssuer] : [options.issuer];
  }

  /** Rejects (`auth_unavailable`) when the provider's signing keys cannot be had; see KeySource.ready. */
  keysReady(): Promise<void> {
    return this.#keys.ready();
  }

  /** A token verified before answers at once (no promise): the warm path of every request. */
  verify(token: string): VerifiedJwt | Promise<VerifiedJwt> {
    const digest = createHash('sha256').update(token).digest('base64url');
    const cached = this.#cache.get(digest);
    if (cached) return { principal: cached, fresh: false };
    return this.#verifyAnew(token, digest);
  }

  async #verifyAnew(token: string, digest: string): Promise<VerifiedJwt> {
    const keys = await this.#keys.resolver();
    try {
      const { payload } = await jwtVerify(token, keys, {
        algorithms: ['RS256'],
        issuer: this.#issuers,
        audience: this.options.audience,
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ['exp', 'iat', 'sub'],
      });
      const now = Math.floor(Date.now() / 1000);
      if (typeof payload.sub !== 'string' || payload.sub === '') throw authProblems.invalidToken();
      if ((payload.iat as number) > now + CLOCK_SKEW_SECONDS) throw authProblems.invalidToken();
      const principal = principalFromClaims(payload, this.options.audience);
      this.#cache.set(digest, principal, ((payload.exp as number) + CLOCK_SKEW_SECONDS) * 1000);
      const session = typeof payload.sid === 'string' && payload.sid !== '' ? `sid:${payload.sid}` : `token:${digest}`;
      const fresh = this.#sessions.firstSight(`${principal.sub}|${session}`);
      return { principal, fresh, claimValues: fresh ? claimValues(payload[this.options.groupClaim]) : undefined };
    } catch (error) {
      if (error instanceof Problem) throw error;
      if (error instanceof errors.JWTExpired) throw authProblems.tokenExpired();
      if (TOKEN_FAULTS.some((fault) => error instanceof fault)) throw authProblems.invalidToken();
      // Anything else (timeout, refused connection, a key set that is not JSON) is the provider's fault, not the caller's.
      this.log.warn({ err: error }, 'identity provider keys unavailable');
      throw authProblems.authUnavailable();
    }
  }
}
