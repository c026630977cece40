import { AsyncLocalStorage } from 'node:async_hooks';

/** How the caller of a request proved who it is. */
export type AuthMethod = 'jwt' | 'pat' | 'internal' | 'dev_bypass' | 'public' | 'run_token';

/**
 * Who is acting in the current request, as every audit entry written during it records. One object per
 * request: the authentication step fills in the actor, the organization step the active organization.
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
}

/**
 * Holds one AuditContext per request. The store is created by the composition root and passed down,
 * so there is no module-level state and two apps in one process never share contexts.
 */
export class AuditContextStore {
  readonly #storage = new AsyncLocalStorage<AuditContext>();

  /** Runs `fn` with `context` bound; the binding ends when `fn`'s promise settles. */
  run<T>(context: AuditContext, fn: () => Promise<T>): Promise<T> {
    return this.#storage.run(context, fn);
  }

  current(): AuditContext | undefined {
    return this.#storage.getStore();
  }
}
