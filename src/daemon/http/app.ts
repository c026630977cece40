import Koa from 'koa';
import { CATALOGUE } from '../../shared/catalogue/catalogue.js';
import type { AuditWriter } from '../audit/audit-writer.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { EffectivePolicies } from '../authz/effective-policies.js';
import type { OrgAccessRepo } from '../authz/org-access-repo.js';
import type { Logger } from '../logging/logger.js';
import type { LoginSync } from '../tenancy/login-sync.js';
import { accessLog } from './middleware/access-log.js';
import { auditContext } from './middleware/audit-context.js';
import { authenticate } from './middleware/authenticate.js';
import { authorize } from './middleware/authorize.js';
import { clientAddress } from './middleware/client-address.js';
import { dispatch } from './middleware/dispatch.js';
import { drainConnections } from './middleware/drain-connections.js';
import { matchRoute } from './middleware/match-route.js';
import { parseBody } from './middleware/parse-body.js';
import { problemResponse } from './middleware/problem-response.js';
import { clientWentAway, noteClientGone } from './client-gone.js';
import { provisionUser } from './middleware/provision-user.js';
import { refuseDisabled } from './middleware/refuse-disabled.js';
import { resolveOrganization } from './middleware/resolve-organization.js';
import { requestId } from './middleware/request-id.js';
import { resolvePolicy } from './middleware/resolve-policy.js';
import { securityHeaders } from './middleware/security-headers.js';
import { mountRoutes } from './mount-routes.js';
import { requestPath } from './request-path.js';
import { checkResponse } from './route-input.js';
import type { AppContext, AppState, DomainRoutes, Finisher, MountedRoute, Step } from './types.js';

export interface AppOptions {
  readonly log: Logger;
  readonly audit: AuditWriter;
  readonly authenticator: Authenticator;
  readonly policies: EffectivePolicies;
  readonly loginSync: LoginSync;
  readonly orgAccess: OrgAccessRepo;
  readonly trustProxyHeaders: boolean;
  readonly maxBodyBytes: number;
  /** Check each answer against its route's declared responses (SERVICE_CHECK_RESPONSES). */
  readonly checkResponses?: boolean;
  readonly domains: readonly DomainRoutes[];
  /** True once shutdown has begun. */
  readonly isDraining: () => boolean;
}

export interface AssembledApp {
  readonly app: Koa<AppState>;
  readonly mounted: readonly MountedRoute[];
}

/**
 * Assembles the Koa app. The request path is listed here, in order; each step has one concern. It runs
 * as one Koa middleware (`requestPath`), which calls the steps directly instead of through Koa's chain.
 */
export function createApp(options: AppOptions): AssembledApp {
  const { trie, mounted } = mountRoutes(CATALOGUE, options.domains);
  const answerProblem = problemResponse();
  const steps: Step[] = [
    requestId(options.log),
    securityHeaders(),
    clientAddress(options.trustProxyHeaders),
    matchRoute(trie),
    auditContext(),
    resolvePolicy(options.policies),
    refuseDisabled(options.audit),
    authenticate(options.authenticator),
    provisionUser(options.loginSync, options.log),
    resolveOrganization(options.orgAccess),
    authorize(options.audit),
    parseBody(options.maxBodyBytes),
    dispatch(answerProblem, options.checkResponses ? checkResponse : undefined),
  ];
  const finishers: Finisher[] = [drainConnections(options.isDraining), accessLog(options.log)];
  const app = new Koa<AppState>();
  app.use(requestPath({ steps, answerProblem, finishers }));
  // Errors are answered by answerProblem; what reaches Koa's handler happened after the response began.
  app.on('error', (error: unknown, ctx?: AppContext) => {
    // A client that left half way is no failure of ours.
    if (clientWentAway(ctx, error)) return noteClientGone(ctx!, error);
    options.log.error({ err: error }, 'response failed after it started');
  });
  return { app, mounted };
}
