import { ApiError, CliError, usageError } from '../../errors.js';
import { loginCommand } from '../../auth/login-command.js';
import { isHeadless, openBrowser } from '../../auth/environment.js';
import { resolveServer } from '../../auth/session.js';
import { discoverServer } from '../../auth/server-config.js';
import type { LoginMethod, StoredProfile } from '../../auth/store.js';
import { toStoredTokens, type StoredTokens } from '../../auth/tokens.js';
import { ApiClient } from '../../http/client.js';
import { readStdin, prompt } from '../../runtime/io.js';
import { normalizeServer, type Context } from '../../runtime/context.js';

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

/** Only parses: commander's values and the environment into options, refusing contradictions. */
export function parseLoginOptions(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): LoginOptions {
  const clientCredentials = raw.clientCredentials === true;
  const withToken = raw.withToken === true;
  if (clientCredentials && withToken) throw usageError('--client-credentials and --with-token cannot be combined');
  if ((clientCredentials || withToken) && raw.device === true) throw usageError('--device is for interactive login only');
  const timeout = raw.timeout === undefined ? 300 : Number(raw.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) throw usageError(`--timeout must be a positive number of seconds, not ${String(raw.timeout)}`);
  const port = raw.callbackPort === undefined ? undefined : Number(raw.callbackPort);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) throw usageError(`--callback-port must be a TCP port, not ${String(raw.callbackPort)}`);
  const clientId = typeof raw.clientId === 'string' ? raw.clientId : env.SVC_CLIENT_ID || undefined;
  const clientSecret = typeof raw.clientSecret === 'string' ? raw.clientSecret : env.SVC_CLIENT_SECRET || undefined;
  if (clientCredentials && (clientId === undefined || clientSecret === undefined)) {
    throw usageError('--client-credentials needs a client id and secret', 'pass --client-id and --client-secret, or set SVC_CLIENT_ID and SVC_CLIENT_SECRET');
  }
  return {
    mode: clientCredentials ? 'client_credentials' : withToken ? 'with_token' : 'interactive',
    device: raw.device === true,
    browser: raw.browser !== false,
    timeoutMs: timeout * 1000,
    callbackPort: port,
    clientId,
    clientSecret,
  };
}

async function serverFor(ctx: Context): Promise<string> {
  try {
    return await resolveServer(ctx);
  } catch {
    return normalizeServer(await prompt(ctx.io, 'Server URL: ', '--server URL (or set SVC_SERVER)'));
  }
}

export async function runLogin(options: LoginOptions, ctx: Context): Promise<void> {
  const { io, globals } = ctx;
  const server = await serverFor(ctx);
  const child: Context = { ...ctx, globals: { ...globals, server }, env: { ...ctx.env, SVC_TOKEN: '' } };

  let method: LoginMethod;
  let issuer: string | null = null;
  let clientId: string | null = null;
  let tokens: StoredTokens;
  if (options.mode === 'with_token') {
    if (io.stdinIsTTY) io.err('Paste the token, then press Ctrl-D:\n');
    const token = (await readStdin(io)).trim();
    if (token === '' || /\s/.test(token)) throw usageError('--with-token reads one token from standard input, and got none', 'echo "$TOKEN" | svc login --with-token');
    method = 'token';
    tokens = toStoredTokens({ access_token: token });
  } else {
    const config = await discoverServer(server, ctx.signal);
    if (!config.auth_enabled || config.issuer === null) throw new CliError('error', `${server} runs without authentication; no login is needed`);
    issuer = config.issuer;
    const { configureClient } = await import('../../auth/oidc.js');
    const flows = await import('../../auth/flows.js');
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
      tokens = toStoredTokens(method === 'device' ? await flows.deviceLogin(oidcConfig, login) : await flows.pkceLogin(oidcConfig, { ...login, callbackPort: options.callbackPort }));
    }
  }

  const entry: Omit<StoredProfile, 'updated_at'> = { server, issuer, client_id: clientId, method, ...tokens, username: null };
  // Check the credential against the server before keeping it.
  const me = await whoIs(child, entry);
  await (await ctx.store()).put(globals.profile, { ...entry, username: me });
  io.err(`Logged in to ${server} as ${me ?? 'unknown'} (profile ${globals.profile}, ${method}).\n`);
}

async function whoIs(ctx: Context, entry: Omit<StoredProfile, 'updated_at'>): Promise<string | null> {
  const probe: Context = { ...ctx, env: { ...ctx.env, SVC_TOKEN: entry.access_token } };
  let response;
  try {
    response = await new ApiClient(probe).request({ method: 'GET', path: '/auth/me' });
  } catch (err) {
    if (!(err instanceof ApiError) || err.kind !== 'auth_required') throw err;
    throw new CliError('auth_required', `${entry.server} refused the new credential: ${err.message}`, {
      code: err.code, requestId: err.requestId, hint: loginCommand({ profile: ctx.globals.profile, server: entry.server, method: entry.method, clientId: entry.client_id }),
    });
  }
  const body = response.body as { username?: unknown } | null;
  return typeof body?.username === 'string' ? body.username : null;
}
