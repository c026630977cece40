import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { resolveServer } from '../../auth/session.js';
import type { LoginOptions } from '../../auth/sign-in.js';
import { prompt } from '../../runtime/io.js';
import { normalizeServer } from '../../runtime/base-context.js';
import type { Context } from '../../runtime/context.js';
import type { Invoke } from '../verb.js';

export type { LoginOptions } from '../../auth/sign-in.js';

export function define(command: Command): void {
  command
    .description('Log in to an svc server (device grant over SSH or without a display, else the browser).')
    .option('--device', 'use the device grant (a code to enter on another device)')
    .option('--no-browser', 'print the URL but do not open a browser')
    .option('--timeout <seconds>', 'give up waiting for the sign-in after this long', '300')
    .option('--callback-port <port>', 'fixed loopback port for the browser redirect (providers that pin ports)')
    .option('--client-credentials', 'log in as an automation client (client id and secret)')
    .option('--client-id <id>', 'client id for --client-credentials (env SVC_CLIENT_ID)')
    .option('--client-secret <secret>', 'client secret for --client-credentials (env SVC_CLIENT_SECRET); never stored')
    .option('--with-token', 'read a token (a personal access token) from standard input');
}

export const invoke: Invoke = ({ raw, ctx }) => runLogin(parseLoginOptions(raw, ctx.env), ctx);

/** Only parses: commander's values and the environment into options, refusing contradictions. */
export function parseLoginOptions(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): LoginOptions {
  const clientCredentials = raw.clientCredentials === true;
  const withToken = raw.withToken === true;
  if (clientCredentials && withToken) throw usageError('--client-credentials and --with-token cannot be combined');
  if ((clientCredentials || withToken) && raw.device === true) throw usageError('--device is for interactive login only');
  const timeout = raw.timeout === undefined ? 300 : Number(raw.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw usageError(`--timeout must be a positive number of seconds, not ${String(raw.timeout)}`);
  const port = raw.callbackPort === undefined ? undefined : Number(raw.callbackPort);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536))
    throw usageError(`--callback-port must be a TCP port, not ${String(raw.callbackPort)}`);
  const clientId = typeof raw.clientId === 'string' ? raw.clientId : env.SVC_CLIENT_ID || undefined;
  const clientSecret = typeof raw.clientSecret === 'string' ? raw.clientSecret : env.SVC_CLIENT_SECRET || undefined;
  if (clientCredentials && (clientId === undefined || clientSecret === undefined)) {
    throw usageError(
      '--client-credentials needs a client id and secret',
      'pass --client-id and --client-secret, or set SVC_CLIENT_ID and SVC_CLIENT_SECRET',
    );
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
  // Sign-in checks the server's answers with zod: loaded to log in, not with the flags (`svc --help` defines them).
  const { signIn } = await import('../../auth/sign-in.js');
  await signIn(ctx, await serverFor(ctx), options);
}
