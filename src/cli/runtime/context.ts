import type { CredentialStore } from '../auth/store.js';
import { ApiClient } from '../http/client.js';
import type { CredentialSource } from '../http/credential-source.js';
import type { BaseContext, GlobalOptions } from './base-context.js';
import type { IO } from './io.js';

export type { BaseContext, GlobalOptions } from './base-context.js';

/**
 * What a run function may use, made lazily (cli/cli's `cmdutil.Factory`): nothing here opens a file
 * or the network until asked, and a test may hand in its own credential source or client.
 */
export interface Context extends BaseContext {
  /** Where requests' bearer comes from: SVC_TOKEN, else the profile's stored credential (auth/session.ts). */
  credentials(): Promise<CredentialSource>;
  /** The API client with this context's credentials and `--org` (cli/cli's `f.HttpClient()`), made on first use. */
  apiClient(): ApiClient;
}

/** What a test puts in place of the real thing. */
export interface ContextOverrides {
  readonly credentials?: CredentialSource;
  /** Makes the client (e.g. `new ApiClient(ctx, stubTransport)`). */
  readonly apiClient?: (ctx: Context) => ApiClient;
}

export function createContext(
  io: IO,
  env: NodeJS.ProcessEnv,
  globals: GlobalOptions,
  signal: AbortSignal,
  overrides: ContextOverrides = {},
): Context {
  let store: Promise<CredentialStore> | undefined;
  let credentials: Promise<CredentialSource> | undefined;
  let client: ApiClient | undefined;
  const ctx: Context = {
    io,
    env,
    globals,
    signal,
    store: () => (store ??= import('../auth/store.js').then((m) => new m.CredentialStore(env))),
    credentials: () =>
      (credentials ??=
        overrides.credentials === undefined
          ? import('../auth/session.js').then((m) => m.sessionCredentials(ctx))
          : Promise.resolve(overrides.credentials)),
    apiClient: () => (client ??= overrides.apiClient?.(ctx) ?? new ApiClient(ctx)),
  };
  return ctx;
}
