import { CliError } from '../errors.js';
import type { Context } from '../runtime/context.js';
import { loginCommand } from './login-command.js';
import { SessionExpiredError, withRelogin, type Relogin } from './relogin.js';
import type { StoredProfile } from './store.js';
import { toStoredTokens } from './tokens.js';

/** Renew this long before the stored expiry, so a request does not race the token's end. */
export const REFRESH_MARGIN_MS = 30_000;

export type CredentialSource = { readonly kind: 'env'; readonly variable: 'SVC_TOKEN' } | { readonly kind: 'file'; readonly path: string };

export interface ActiveCredential {
  readonly accessToken: string;
  readonly server: string;
  readonly source: CredentialSource;
  /** The stored profile, when the credential comes from the file. */
  readonly stored: StoredProfile | undefined;
}

const fresh = (stored: StoredProfile, now = Date.now()) =>
  stored.expires_at === null || Date.parse(stored.expires_at) - REFRESH_MARGIN_MS > now;

/** The server a command talks to: `--server`/SVC_SERVER, else the profile's. */
export async function resolveServer(ctx: Context): Promise<string> {
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
export async function activeCredential(ctx: Context, options: CredentialOptions = {}): Promise<ActiveCredential> {
  if (options.relogin === false) return storedOrEnvCredential(ctx, options.force === true);
  // The retry reads the credential the login just stored, which is fresh: no second renewal.
  let attempts = 0;
  return withRelogin(ctx, () => storedOrEnvCredential(ctx, attempts++ === 0 && options.force === true), options.relogin);
}

async function storedOrEnvCredential(ctx: Context, force: boolean): Promise<ActiveCredential> {
  const { profile } = ctx.globals;
  const envToken = ctx.env.SVC_TOKEN;
  if (envToken !== undefined && envToken !== '') {
    return { accessToken: envToken, server: await resolveServer(ctx), source: { kind: 'env', variable: 'SVC_TOKEN' }, stored: undefined };
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
  const source = { kind: 'file', path: store.path } as const;
  if (!force && fresh(stored)) return { accessToken: stored.access_token, server: stored.server, source, stored };

  const renewed = await store.locked(async () => {
    const current = await store.get(profile);
    if (current === undefined) return undefined;
    // Another process may have renewed while we waited for the lock.
    if (current.access_token !== stored.access_token && fresh(current)) return current;
    const tokens = await renew(ctx, current);
    if (tokens === undefined) return undefined;
    return store.putUnlocked(profile, { ...current, ...tokens, refresh_token: tokens.refresh_token ?? current.refresh_token });
  });
  if (renewed === undefined) {
    throw new SessionExpiredError(
      profile,
      stored,
      loginCommand({ profile, server: stored.server, method: stored.method, clientId: stored.client_id }),
    );
  }
  return { accessToken: renewed.access_token, server: renewed.server, source, stored: renewed };
}

/** New tokens for a stored credential, or undefined when it cannot be renewed without the user. */
async function renew(ctx: Context, stored: StoredProfile): Promise<ReturnType<typeof toStoredTokens> | undefined> {
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
