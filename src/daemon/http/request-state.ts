import type { AuthResult } from '../auth/auth-result.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { Logger } from '../logging/logger.js';
import type { RouteScope } from '../../shared/policy/org-scope.js';
import type { Policy } from '../../shared/policy/policies.js';
import type { AppState, MountedRoute } from './types.js';

/**
 * The state of one request. Every member exists from the start, so all requests share one object shape.
 * The request's logger is made on first use: a pino child serializes its bindings when created, which
 * a request that logs nothing (the usual case at level warn) need not pay.
 */
export class RequestState implements AppState {
  clientIp = '';
  mounted: MountedRoute | undefined = undefined;
  params: Record<string, string> = {};
  body: unknown = undefined;
  rawBody: Buffer | undefined = undefined;
  audit: AuditContext | undefined = undefined;
  policy: Policy | undefined = undefined;
  auth: AuthResult | undefined = undefined;
  scope: RouteScope | undefined = undefined;
  org: { readonly id: string; readonly slug: string } | undefined = undefined;
  orgRole: string | undefined = undefined;
  freshCredential: boolean | undefined = undefined;
  #log: Logger | undefined = undefined;

  constructor(
    public requestId: string,
    private readonly baseLog: Logger,
  ) {}

  get log(): Logger {
    return (this.#log ??= this.baseLog.child({ request_id: this.requestId }));
  }
}
