import { ApiError, CliError, usageError } from '../errors.js';
import { ApiClient } from '../http/client.js';
import { fixedCredential } from '../http/credential-source.js';
import type { BaseContext } from '../runtime/base-context.js';
import { readStdin } from '../runtime/io.js';
import { isHeadless, openBrowser } from './environment.js';
import { loginCommand } from './login-command.js';
import { discoverServer } from './server-config.js';
import type { LoginMethod, StoredProfile } from './store.js';
import { toStoredTokens, type StoredTokens } from './tokens.js';

export interface LoginOptions {
  readonly mode: 'interactive' | 'client_credentials' | 'with_token';
  /** Interactive only: force the device grant (else chosen by the environment). */
  readonly device: boolean;
  readonly browser: boolean;
  readonly timeoutMs: number;
  readonly callbackPort: number | undefined;
  readonly clientId: string | undefined;
  /** Used for this login only; never stored. */
  readonly clientSecret: string | undefined;
}

/**
 * Recognises `server` as svc (its `GET /auth/config`), gets a credential from its identity provider by
 * the chosen flow (or from standard input), checks it with `GET /auth/me`, and stores it for the
 * context's profile: what `svc login` does once it knows the server, and what a command does when the
 * user agrees to log in again (auth/relogin.ts).
 */
export async function signIn(ctx: BaseContext, server: string, options: LoginOptions): Promise<StoredProfile> {
  const { io, globals } = ctx;

  let method: LoginMethod;
  let issuer: string | null = null;
  let clientId: string | null = null;
  let tokens: StoredTokens;
  // Before any credential is sent or stored: is this svc at all?
  const config = await discoverServer(server, ctx.signal);
  if (options.mode === 'with_token') {
    if (io.stdinIsTTY) io.err('Paste the token, then press Ctrl-D:\n');
    const token = (await readStdin(io)).trim();
    if (token === '' || /\s/.test(token))
      throw usageError('--with-token reads one token from standard input, and got none', 'echo "$TOKEN" | svc login --with-token');
    method = 'token';
    tokens = toStoredTokens({ access_token: token });
  } else {
    if (!config.auth_enabled || config.issuer === null)
      throw new CliError('error', `${server} runs without authentication; no login is needed`);
    issuer = config.issuer;
    const { configureClient } = await import('./oidc.js');
    const flows = await import('./flows.js');
    if (options.mode === 'client_credentials') {
      method = 'client_credentials';
      clientId = options.clientId!;
      tokens = toStoredTokens(await flows.clientCredentialsLogin(await configureClient(issuer, clientId, options.clientSecret)));
    } else {
      clientId = config.cli_client_id;
      const oidcConfig = await configureClient(issuer, clientId);
      const headless = isHeadless(ctx.env);
      const login = {
        io,
        scope: config.scopes.join(' '),
        openBrowser: options.browser && !headless ? (url: string) => openBrowser(url, ctx.env) : undefined,
        signal: ctx.signal,
        timeoutMs: options.timeoutMs,
      };
      method = options.device || headless ? 'device' : 'pkce';
      tokens = toStoredTokens(
        method === 'device'
          ? await flows.deviceLogin(oidcConfig, login)
          : await flows.pkceLogin(oidcConfig, { ...login, callbackPort: options.callbackPort }),
      );
    }
  }

  const entry: Omit<StoredProfile, 'updated_at'> = { server, issuer, client_id: clientId, method, ...tokens, username: null };
  // Check the credential against the server before keeping it.
  const me = await whoIs(ctx, entry);
  const stored = await (await ctx.store()).put(globals.profile, { ...entry, username: me });
  io.err(`Logged in to ${server} as ${me ?? 'unknown'} (profile ${globals.profile}, ${method}).\n`);
  return stored;
}

/** The new credential's username by `GET /auth/me`, sent with that credential itself (not SVC_TOKEN, not the stored one). */
async function whoIs(ctx: BaseContext, entry: Omit<StoredProfile, 'updated_at'>): Promise<string | null> {
  const credentials = fixedCredential({ accessToken: entry.access_token, server: entry.server });
  const client = new ApiClient({ globals: ctx.globals, signal: ctx.signal, credentials: async () => credentials });
  let response;
  try {
    response = await client.request({ method: 'GET', path: '/auth/me' });
  } catch (err) {
    if (!(err instanceof ApiError) || err.kind !== 'auth_required') throw err;
    throw new CliError('auth_required', `${entry.server} refused the new credential: ${err.message}`, {
      code: err.code,
      requestId: err.requestId,
      hint: loginCommand({ profile: ctx.globals.profile, server: entry.server, method: entry.method, clientId: entry.client_id }),
    });
  }
  const body = response.body as { username?: unknown } | null;
  return typeof body?.username === 'string' ? body.username : null;
}
