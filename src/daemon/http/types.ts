import type { ParameterizedContext } from 'koa';
import type { z } from 'zod';
import type { CatalogueRoute, RouteSpec } from '../../shared/catalogue/types.js';
import type { RouteScope } from '../../shared/policy/org-scope.js';
import type { Policy } from '../../shared/policy/policies.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { AuthResult } from '../auth/auth-result.js';
import type { Logger } from '../logging/logger.js';

/** How a route wants its request body: parsed JSON (default), the raw bytes (signature checks), or not read. */
export type BodyMode = 'json' | 'raw' | 'none';

/** One answer a route gives: its description and, when it has a body, the body's schema (as sent on the wire). */
export interface ResponseDeclaration {
  readonly description: string;
  readonly schema?: z.ZodType;
  /** `application/json` unless said. */
  readonly contentType?: string;
}

/** A route's answers by status. The 2xx ones are checked against what the handler answers (SERVICE_CHECK_RESPONSES). */
export type ResponseDeclarations = Readonly<Record<number, ResponseDeclaration>>;

type Parsed<S, Otherwise> = S extends z.ZodType ? z.output<S> : Otherwise;

/** What `dispatch` hands the handler: each part parsed by the route's schema, or as it arrived when the route declares none. */
export interface RouteInput<P, Q, B> {
  readonly params: Parsed<P, Readonly<Record<string, string>>>;
  readonly query: Parsed<Q, undefined>;
  readonly body: Parsed<B, undefined>;
}

/**
 * The handler side of one catalogue route, as `dispatch`, `parseBody` and the OpenAPI document read it.
 * Domains make one with `route()` (http/route.ts), which types `handle`'s input from the schemas.
 */
export interface RouteBinding {
  readonly summary?: string;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly noBody?: true;
  readonly body?: z.ZodType;
  readonly bodyMediaType?: string;
  readonly responses: ResponseDeclarations;
  readonly bodyMode?: BodyMode;
  readonly maxBodyBytes?: number;
  readonly preValidation?: (ctx: AppContext) => void;
  readonly handle: (
    ctx: AppContext,
    input: { readonly params: unknown; readonly query: unknown; readonly body: unknown },
  ) => Promise<void> | void;
}

/** A domain's handlers, keyed by the catalogue's `METHOD /path`. */
export type DomainRoutes = Partial<Record<RouteSpec, RouteBinding>>;

export interface MountedRoute {
  readonly route: CatalogueRoute;
  /** Absent while the route's domain is not built: the route answers 501 `not_implemented`. */
  readonly binding: RouteBinding | undefined;
}

export interface AppState {
  requestId: string;
  /** The request's logger, bound to its id. */
  readonly log: Logger;
  clientIp: string;
  mounted?: MountedRoute;
  params: Record<string, string>;
  /** The parsed JSON body; `undefined` when the request had none. */
  body?: unknown;
  rawBody?: Buffer;
  audit?: AuditContext;
  /** The route's effective policy. */
  policy?: Policy;
  auth?: AuthResult;
  scope?: RouteScope;
  /** The active organization (exists and is active), on organization-scoped routes. */
  org?: { readonly id: string; readonly slug: string };
  /** The caller's membership role in the active organization. */
  orgRole?: string;
  /** True when the credential was verified for the first time on this instance (the first request of a session). */
  freshCredential?: boolean;
}

export type AppContext = ParameterizedContext<AppState>;

/** What a step returns: nothing to go on to the next step, `'answered'` when it has answered the request itself. */
export type StepOutcome = void | 'answered';

/**
 * One step of the request path. A step returns a promise only when it has to wait (a query, the body), so
 * the path costs no promise for the steps that decide at once. A refusal is thrown (or rejected) as a Problem.
 */
export type Step = (ctx: AppContext) => StepOutcome | Promise<StepOutcome>;

/** Runs once the request has its answer (a problem included), after every step; `started` is when it arrived. */
export type Finisher = (ctx: AppContext, started: bigint) => void;

/** Turns whatever a step threw into the request's answer. */
export type ProblemResponder = (ctx: AppContext, error: unknown) => void;
