import type { CredentialStore } from '../auth/store.js';
import type { IO } from './io.js';

/** Options every command takes (from the root command), after the environment is applied. */
export interface GlobalOptions {
  /** `--profile`, else SVC_PROFILE, else `default`. */
  readonly profile: string;
  /** `--server`, else SVC_SERVER; undefined means the profile's stored server. */
  readonly server: string | undefined;
  /** `--org`: sent as X-Org-Id. */
  readonly org: string | undefined;
}

/**
 * The part of a command's context below the network: streams, environment, global options, Ctrl-C
 * and the credential store. The credential code (auth/) takes this rather than the whole `Context`:
 * it is what the context's credential source is made of, so it cannot depend on the context that
 * holds one (runtime/context.ts loads it).
 */
export interface BaseContext {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  readonly globals: GlobalOptions;
  /** Aborted by Ctrl-C. */
  readonly signal: AbortSignal;
  /** The credential store (loaded on first use: it brings the file system and the lock). */
  store(): Promise<CredentialStore>;
}

export function normalizeServer(server: string): string {
  let url: URL;
  try {
    url = new URL(/^https?:\/\//.test(server) ? server : `https://${server}`);
  } catch {
    throw new TypeError(`not a server URL: ${server}`);
  }
  return url.toString().replace(/\/+$/, '');
}

export function parseGlobals(raw: { profile?: unknown; server?: unknown; org?: unknown }, env: NodeJS.ProcessEnv): GlobalOptions {
  const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const server = str(raw.server) ?? str(env.SVC_SERVER);
  return {
    profile: str(raw.profile) ?? str(env.SVC_PROFILE) ?? 'default',
    server: server === undefined ? undefined : normalizeServer(server),
    org: str(raw.org),
  };
}
