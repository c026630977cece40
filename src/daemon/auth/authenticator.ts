import type { IncomingHttpHeaders } from 'node:http';
import { DEV_PRINCIPAL } from '../../shared/auth/principal.js';
import type { CatalogueRoute } from '../../shared/catalogue/types.js';
import type { Policy } from '../../shared/policy/policies.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { Config } from '../config/config.js';
import { problems } from '../../shared/api/problems.js';
import { authProblems } from './auth-problems.js';
import type { AuthResult } from './auth-result.js';
import { readCredential } from './credentials.js';
import { repeatedCredentialHeader } from './repeated-header.js';
import { internalTokenMatches } from './internal-token.js';
import type { JwtVerifier, VerifiedJwt } from './jwt/jwt-verifier.js';
import { looksLikePersonalAccessToken } from './pat/pat-format.js';
import type { PatService } from './pat/pat-service.js';
import type { TicketsService } from './tickets/tickets-service.js';
import type { RunTokenGrant, RunTokenVerifier } from '../domains/run-tokens/run-token-verifier.js';

/** `custom` routes that take a stream ticket (browsers cannot set headers on an event stream) or a bearer token. */
const TICKET_ROUTES = new Set(['GET /bff/runs/{run_id}/events/stream', 'GET /runs/{run_id}/monitors/stream']);

/** The state-backend routes where HTTP Basic carries a run token (access-control.md, Managed state backend credentials). */
const BASIC_ROUTES = new Set([
  'GET /iac-states/{name}/state',
  'POST /iac-states/{name}/state',
  'POST /iac-states/{name}/lock',
  'DELETE /iac-states/{name}/lock',
]);

/** Routes a presigned URL (`signature` in the query) may call without a credential; the handler verifies it. */
const SIGNED_URL_ROUTES = new Set(['GET /files/{file_id}/{filename}']);

const BEARER_CHALLENGE = 'Bearer realm="svc"';

export interface AuthRequest {
  readonly route: CatalogueRoute;
  readonly policy: Policy;
  readonly headers: IncomingHttpHeaders;
  /** Node's raw header list, where a repeated credential header shows. */
  readonly rawHeaders: readonly string[];
  readonly ticket: string | undefined;
  /** The query's `signature`, on a route that takes presigned URLs. */
  readonly signature?: string | undefined;
  readonly audit: AuditContext;
}

export type AuthOutcome = AuthResult & { fresh?: boolean };

function jwtOutcome(verified: VerifiedJwt): AuthOutcome {
  return { method: 'jwt', principal: verified.principal, fresh: verified.fresh, claimValues: verified.claimValues };
}

/** One authenticator per credential kind, chosen by the route's effective policy. */
export class Authenticator {
  constructor(
    private readonly config: Config,
    private readonly jwt: JwtVerifier | undefined,
    private readonly pats: PatService,
    private readonly tickets: TicketsService,
    private readonly runTokens: RunTokenVerifier,
  ) {}

  /** Answers at once where no I/O is needed (public, development mode, worker token, a warm JWT). */
  authenticate(request: AuthRequest): AuthOutcome | Promise<AuthOutcome> {
    const { route, policy } = request;
    if (policy === 'public') return { method: 'public' };
    // Before development mode too: a presigned URL is checked the same way whoever holds it.
    if (request.signature !== undefined && SIGNED_URL_ROUTES.has(route.key) && policy !== 'disabled')
      return { method: 'public', signedUrl: true };
    const repeated = repeatedCredentialHeader(request.rawHeaders);
    if (repeated !== undefined) throw problems.ambiguousCredentials(repeated);
    if (this.config.authDisabled) return { method: 'dev_bypass', principal: DEV_PRINCIPAL };
    if (policy === 'internal') return this.#worker(request.headers);
    if (policy === 'custom') {
      if (TICKET_ROUTES.has(route.key) && request.ticket !== undefined) return this.#ticket(request.ticket);
      // Other custom routes (the registry proxy's) authenticate in their handler.
      if (!TICKET_ROUTES.has(route.key)) return { method: 'public' };
    }
    return this.#bearer(request);
  }

  #worker(headers: IncomingHttpHeaders): AuthResult {
    const expected = this.config.internalApiToken;
    if (expected === undefined) {
      if (this.config.internalApiTokenOptional) return { method: 'internal' };
      throw authProblems.invalidInternalToken();
    }
    if (!internalTokenMatches(headers['x-internal-token'], expected)) throw authProblems.invalidInternalToken();
    return { method: 'internal' };
  }

  async #ticket(ticket: string): Promise<AuthResult> {
    // The ticket stands in for the credential that obtained it; the audit records that credential's
    // method, and one obtained with a personal access token acts, as the token does, only in its organization.
    const { principal, authMethod, pat } = await this.tickets.redeem(ticket);
    return { method: authMethod === 'pat' ? 'pat' : 'jwt', principal, ...(pat ? { pat } : {}) };
  }

  async #runToken(token: string): Promise<AuthResult> {
    const grant = await this.runTokens.verify(token);
    if (!grant || grant.kind !== 'iac_state') throw authProblems.invalidRunToken();
    return { method: 'run_token', principal: runTokenPrincipal(grant), runToken: grant };
  }

  #bearer(request: AuthRequest): AuthOutcome | Promise<AuthOutcome> {
    const credential = readCredential(request.headers);
    switch (credential.kind) {
      case 'none':
        throw authProblems.unauthenticated(BEARER_CHALLENGE);
      case 'basic':
        if (BASIC_ROUTES.has(request.route.key)) return this.#runToken(credential.password);
        throw authProblems.basicRefused();
      case 'malformed':
        throw authProblems.invalidToken();
      case 'bearer': {
        if (looksLikePersonalAccessToken(credential.token)) {
          return this.pats.authenticate(credential.token, request.audit).then((identity) => ({
            method: 'pat' as const,
            principal: identity.principal,
            pat: { tokenId: identity.tokenId, orgId: identity.orgId, userId: identity.userId },
          }));
        }
        if (!this.jwt) throw authProblems.authNotConfigured();
        const verified = this.jwt.verify(credential.token);
        return verified instanceof Promise ? verified.then(jwtOutcome) : jwtOutcome(verified);
      }
    }
  }
}

/** A run token as a principal: no realm role (it acts only through its organization role, operator). */
function runTokenPrincipal(grant: RunTokenGrant) {
  return {
    sub: `run_token:${grant.tokenId}`,
    username: `run ${grant.runId} step ${grant.stepId}`,
    email: '',
    realmRoles: [],
    clientRoles: [],
    groups: [],
    isServiceAccount: true,
  };
}
