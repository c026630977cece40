import type { Principal } from '../../shared/auth/principal.js';
import type { AuthMethod } from '../audit/audit-context.js';
import type { RunTokenGrant } from '../domains/run-tokens/run-token-verifier.js';

/** Who the caller is after authentication. `principal` is absent on public routes and for a worker. */
export interface AuthResult {
  readonly method: AuthMethod;
  readonly principal?: Principal;
  /** Set for a personal access token: the token and the one organization it acts in. */
  readonly pat?: { readonly tokenId: string; readonly orgId: string; readonly userId: string };
  /** JWT only, on the first request of a session: the values of the configured group claim (undefined: claim absent). */
  readonly claimValues?: readonly string[] | undefined;
  /** A presigned URL stands in for a credential: the route's handler checks its signature (no principal, no organization). */
  readonly signedUrl?: true;
  /** Set for a run token (HTTP Basic on the state backend routes): it acts in its run's organization as an operator, on its one state. */
  readonly runToken?: RunTokenGrant;
}
