import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError } from '../errors.js';
import type { IO } from '../runtime/io.js';
import { oidc, type OidcConfiguration } from './oidc.js';

export interface InteractiveLogin {
  readonly io: IO;
  readonly scope: string;
  /** Try to open a browser (after the URL is printed). */
  readonly openBrowser: ((url: string) => void) | undefined;
  /** Ctrl-C. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
}

type Tokens = oidc.TokenEndpointResponse;

/** Runs `fn` with a signal that ends on Ctrl-C (interrupted) or after the timeout (error). */
async function bounded<T>(login: InteractiveLogin, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timeout = AbortSignal.timeout(login.timeoutMs);
  const signal = AbortSignal.any([login.signal, timeout]);
  const stopped = () => {
    if (login.signal.aborted) return new CliError('interrupted', 'login cancelled');
    return new CliError('error', `login timed out after ${Math.round(login.timeoutMs / 1000)} s`, {
      hint: 'run svc login again (--timeout SECONDS to wait longer)',
    });
  };
  try {
    const aborted = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(stopped());
      signal.addEventListener('abort', () => reject(stopped()), { once: true });
    });
    return await Promise.race([fn(signal), aborted]);
  } catch (err) {
    if (signal.aborted) throw stopped();
    throw err;
  }
}

/** Device authorization grant: prints the verification URL and user code, then polls. */
export async function deviceLogin(config: OidcConfiguration, login: InteractiveLogin): Promise<Tokens> {
  const started = await oidc.initiateDeviceAuthorization(config, { scope: login.scope });
  login.io.err(`Verification URL: ${started.verification_uri}\nUser code: ${started.user_code}\n`);
  if (started.verification_uri_complete) login.io.err(`Direct link: ${started.verification_uri_complete}\n`);
  login.io.err('Waiting for the sign-in to be approved (Ctrl-C to cancel)...\n');
  login.openBrowser?.(started.verification_uri_complete ?? started.verification_uri);
  return bounded(login, (signal) => oidc.pollDeviceAuthorizationGrant(config, started, undefined, { signal }));
}

/** Ports tried, in order, when a random port cannot be had; providers that pin ports register these. */
export const FALLBACK_CALLBACK_PORTS = [53682, 53683, 53684] as const;

async function listenLoopback(ports: readonly number[]): Promise<Server> {
  let lastError: unknown;
  for (const port of ports) {
    const server = createServer();
    try {
      server.listen(port, '127.0.0.1');
      await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err as Error))]);
      return server;
    } catch (err) {
      lastError = err;
      server.close();
    }
  }
  throw new CliError('error', `cannot listen on a loopback port for the login callback: ${(lastError as Error)?.message}`);
}

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif"><h1>${title}</h1><p>${text}</p></body>`;

/**
 * Authorization code + PKCE on a loopback redirect `http://127.0.0.1:<port>/callback`: prints the
 * authorization URL, opens the browser, and exchanges the code the provider redirects back with.
 */
export async function pkceLogin(
  config: OidcConfiguration,
  login: InteractiveLogin & { readonly callbackPort: number | undefined },
): Promise<Tokens> {
  const server = await listenLoopback(login.callbackPort === undefined ? [0, ...FALLBACK_CALLBACK_PORTS] : [login.callbackPort]);
  try {
    const { port } = server.address() as AddressInfo;
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: login.scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    login.io.err(`Authorization URL: ${url.href}\nWaiting for the browser to come back to ${redirectUri} (Ctrl-C to cancel)...\n`);
    login.openBrowser?.(url.href);
    return await bounded(
      login,
      () =>
        new Promise<Tokens>((resolve, reject) => {
          server.on('request', (req, res) => {
            const current = new URL(req.url ?? '/', redirectUri);
            if (current.pathname !== '/callback') {
              res.writeHead(404).end();
              return;
            }
            const finish = (status: number, title: string, text: string) =>
              res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', connection: 'close' }).end(page(title, text));
            oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: verifier, expectedState: state }).then(
              (tokens) => {
                finish(200, 'Signed in', 'svc is signed in. You can close this window.');
                resolve(tokens);
              },
              (err: unknown) => {
                finish(400, 'Sign-in failed', 'svc could not complete the sign-in; see the terminal.');
                reject(new CliError('error', `sign-in failed: ${(err as Error).message}`, { cause: err }));
              },
            );
          });
        }),
    );
  } finally {
    // The answer to the browser carries `Connection: close`; idle keep-alive sockets go now.
    server.close();
    server.closeIdleConnections();
  }
}

/** Client credentials grant of a confidential client. */
export async function clientCredentialsLogin(config: OidcConfiguration): Promise<Tokens> {
  return oidc.clientCredentialsGrant(config);
}
