/** How the caller of a request proved who it is. */
export type AuthMethod = 'jwt' | 'pat' | 'internal' | 'dev_bypass' | 'public' | 'run_token';

/**
 * Who is acting in one request, as every audit entry written during it records. One object per
 * request, made when the request is routed and dropped with it; the authentication step fills in the
 * actor, the organization step the active organization.
 *
 * It travels explicitly (request state, then a parameter of the services that audit) rather than in an
 * AsyncLocalStorage: on Node 20 a single AsyncLocalStorage turns on promise hooks for the whole process,
 * which halves Koa's throughput (bench/, measured here: 33.7k to 15.7k requests/s).
 */
export interface AuditContext {
  readonly requestId: string;
  /** `METHOD /pattern`, the matched catalogue route. */
  readonly route: string;
  readonly clientIp: string;
  readonly userAgent: string | undefined;
  subject?: string;
  username?: string;
  authMethod?: AuthMethod;
  /** The active organization, stamped on every entry written in this request. */
  orgId?: string;
  /** A run token's request: the token, and the run and step it was minted for (stamped into every entry's details). */
  runToken?: { readonly tokenId: string; readonly runId: string; readonly stepId: string };
}
