import { CliError } from '../errors.js';
import type { Credential, CredentialSource } from '../http/credential-source.js';
import type { BaseContext } from '../runtime/base-context.js';
import { loginCommand } from './login-command.js';
import { SessionExpiredError, withRelogin, type Relogin } from './relogin.js';
import type { StoredProfile } from './store.js';
import { toStoredTokens } from './tokens.js';

/** Renew this long before the stored expiry, so a request does not race the token's end. */
export const REFRESH_MARGIN_MS = 30_000;

/** Where the credential was found: the environment variable, or the credentials file. */
export type CredentialOrigin = { readonly kind: 'env'; readonly variable: 'SVC_TOKEN' } | { readonly kind: 'file'; readonly path: string };

export interface ActiveCredential extends Credential {
  readonly refusedHint: string;
  readonly origin: CredentialOrigin;
  /** The stored profile, when the credential comes from the file. */
  readonly stored: StoredProfile | undefined;
}

const fresh = (stored: StoredProfile, now = Date.now()) =>
  stored.expires_at === null || Date.parse(stored.expires_at) - REFRESH_MARGIN_MS > now;

/** The server a command talks to: `--server`/SVC_SERVER, else the profile's. */
export async function resolveServer(ctx: BaseContext): Promise<string> {
  if (ctx.globals.server !== undefined) return ctx.globals.server;
  const stored = await (await ctx.store()).get(ctx.globals.profile);
  if (stored !== undefined) return stored.server;
  throw new CliError('auth_required', `profile "${ctx.globals.profile}" has no server and is not logged in`, {
    hint: loginCommand({ profile: ctx.globals.profile, server: '<url>' }),
  });
}

export interface CredentialOptions {
  /** The server called the token expired: renew even if the stored expiry says it is fresh. */
  readonly force?: boolean;
  /** Who offers to log in again when renewal is impossible (default: the terminal); false never offers. */
  readonly relogin?: Relogin | false;
}

/**
 * The access token to send: SVC_TOKEN when set, else the profile's, renewed when (nearly) expired or
 * when `force` says the server refused it. Renewal happens under the store's lock and re-reads the
 * file first, so concurrent processes refresh once. When renewal is impossible or fails, a terminal
 * user is offered a new login (auth/relogin.ts), after which the stored credential is read again.
 */
export async function activeCredential(ctx: BaseContext, options: CredentialOptions = {}): Promise<ActiveCredential> {
  if (options.relogin === false) return storedOrEnvCredential(ctx, options.force === true);
  // The retry reads the credential the login just stored, which is fresh: no second renewal.
  let attempts = 0;
  return withRelogin(ctx, () => storedOrEnvCredential(ctx, attempts++ === 0 && options.force === true), options.relogin);
}

/**
 * The context's credential source: what the API client sends. SVC_TOKEN is taken as it is (never
 * renewed: the server's refusal stands); the profile's is renewed when the server calls it expired.
 */
export function sessionCredentials(ctx: BaseContext): CredentialSource {
  return {
    current: () => activeCredential(ctx),
    renewed: async () => (envToken(ctx.env) === undefined ? activeCredential(ctx, { force: true }) : undefined),
  };
}

const envToken = (env: NodeJS.ProcessEnv) => (env.SVC_TOKEN === undefined || env.SVC_TOKEN === '' ? undefined : env.SVC_TOKEN);

async function storedOrEnvCredential(ctx: BaseContext, force: boolean): Promise<ActiveCredential> {
  const { profile } = ctx.globals;
  const token = envToken(ctx.env);
  if (token !== undefined) {
    return {
      accessToken: token,
      server: await resolveServer(ctx),
      refusedHint: 'SVC_TOKEN is set and was refused; unset it or set a valid token',
      origin: { kind: 'env', variable: 'SVC_TOKEN' },
      stored: undefined,
    };
  }
  const store = await ctx.store();
  const stored = await store.get(profile);
  const server = ctx.globals.server ?? stored?.server;
  if (stored === undefined || (ctx.globals.server !== undefined && stored.server !== ctx.globals.server)) {
    const why =
      stored === undefined
        ? `not logged in (profile "${profile}")`
        : `profile "${profile}" is logged in to ${stored.server}, not ${ctx.globals.server}`;
    throw new CliError('auth_required', why, { hint: loginCommand({ profile, server: server ?? '<url>' }) });
  }
  const loginAgain = (entry: StoredProfile) =>
    loginCommand({ profile, server: entry.server, method: entry.method, clientId: entry.client_id });
  const fromFile = (entry: StoredProfile): ActiveCredential => ({
    accessToken: entry.access_token,
    server: entry.server,
    refusedHint: loginAgain(entry),
    origin: { kind: 'file', path: store.path },
    stored: entry,
  });
  if (!force && fresh(stored)) return fromFile(stored);

  const renewed = await store.locked(async () => {
    const current = await store.get(profile);
    if (current === undefined) return undefined;
    // Another process may have renewed while we waited for the lock.
    if (current.access_token !== stored.access_token && fresh(current)) return current;
    const tokens = await renew(ctx, current);
    if (tokens === undefined) return undefined;
    return store.putUnlocked(profile, { ...current, ...tokens, refresh_token: tokens.refresh_token ?? current.refresh_token });
  });
  if (renewed === undefined) throw new SessionExpiredError(profile, stored, loginAgain(stored));
  return fromFile(renewed);
}

/** New tokens for a stored credential, or undefined when it cannot be renewed without the user. */
async function renew(ctx: BaseContext, stored: StoredProfile): Promise<ReturnType<typeof toStoredTokens> | undefined> {
  if (stored.issuer === null || stored.client_id === null) return undefined;
  const { configureClient, oidc } = await import('./oidc.js');
  try {
    if ((stored.method === 'device' || stored.method === 'pkce') && stored.refresh_token !== null) {
      const config = await configureClient(stored.issuer, stored.client_id);
      return toStoredTokens(await oidc.refreshTokenGrant(config, stored.refresh_token));
    }
    const secret = ctx.env.SVC_CLIENT_SECRET;
    const envClient = ctx.env.SVC_CLIENT_ID;
    if (stored.method === 'client_credentials' && secret && (!envClient || envClient === stored.client_id)) {
      const config = await configureClient(stored.issuer, stored.client_id, secret);
      return toStoredTokens(await oidc.clientCredentialsGrant(config));
    }
  } catch (err) {
    // openid-client's message is generic; the OAuth error code (invalid_grant, …) says what happened.
    const code = (err as { error?: unknown }).error;
    ctx.io.err(`svc: renewing the credential failed: ${typeof code === 'string' ? code : (err as Error).message}\n`);
    return undefined;
  }
  return undefined;
}
