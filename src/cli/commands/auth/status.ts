import type { Command } from 'commander';
import { loginCommand } from '../../auth/login-command.js';
import { activeCredential } from '../../auth/session.js';
import { CliError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson, styles } from '../../runtime/io.js';
import type { Invoke } from '../verb.js';

export interface StatusOptions {
  readonly json: boolean;
}

export function define(command: Command): void {
  command.description('Who is logged in, to which server, where the credential comes from, and its expiry.').option('--json', 'print JSON');
}

export const invoke: Invoke = ({ raw, ctx }) => runStatus(parseStatusOptions(raw), ctx);

export function parseStatusOptions(raw: Record<string, unknown>): StatusOptions {
  return { json: raw.json === true };
}

/** The `--json` shape of `svc auth status`; field names are stable. */
export interface AuthStatus {
  readonly profile: string;
  readonly server: string;
  readonly logged_in: boolean;
  readonly credential_source: 'env' | 'file';
  /** `SVC_TOKEN`, or the path of the credentials file. */
  readonly credential_location: string;
  readonly method: string | null;
  readonly issuer: string | null;
  readonly client_id: string | null;
  readonly expires_at: string | null;
  readonly user: { readonly sub: string; readonly username: string } | null;
  /** When the server refused the credential: its problem code. */
  readonly error: string | null;
}

/** Who the active credential is, where it comes from, and whether the server accepts it. */
export async function runStatus(options: StatusOptions, ctx: Context): Promise<void> {
  const credential = await activeCredential(ctx);
  let user: AuthStatus['user'] = null;
  let error: string | null = null;
  try {
    const me = (await ctx.apiClient().request({ method: 'GET', path: '/auth/me' })).body as { sub: string; username: string };
    user = { sub: me.sub, username: me.username };
  } catch (err) {
    if (!(err instanceof CliError) || err.kind !== 'auth_required') throw err;
    error = err.code ?? 'auth_required';
  }
  const stored = credential.stored;
  const status: AuthStatus = {
    profile: ctx.globals.profile,
    server: credential.server,
    logged_in: user !== null,
    credential_source: credential.origin.kind,
    credential_location: credential.origin.kind === 'env' ? credential.origin.variable : credential.origin.path,
    method: credential.origin.kind === 'env' ? 'token' : (stored?.method ?? null),
    issuer: stored?.issuer ?? null,
    client_id: stored?.client_id ?? null,
    expires_at: stored?.expires_at ?? null,
    user,
    error,
  };
  if (options.json) printJson(ctx.io, status);
  else {
    const s = styles(ctx.io.colorOut);
    const lines = [
      `${s.bold(status.server)} (profile ${status.profile})`,
      user ? `  Logged in as ${s.bold(user.username)} (${user.sub})` : `  ${s.red('Credential refused')}: ${error}`,
      `  Credential: ${status.credential_source === 'env' ? 'environment variable SVC_TOKEN' : status.credential_location} (${status.method ?? 'unknown'})`,
      `  Expires: ${status.expires_at ?? 'unknown'}`,
    ];
    ctx.io.out(`${lines.join('\n')}\n`);
  }
  if (user === null) {
    throw new CliError('auth_required', 'the server refuses the credential', {
      hint:
        status.credential_source === 'env'
          ? 'unset SVC_TOKEN or set a valid token'
          : loginCommand({ profile: status.profile, server: status.server, method: stored?.method, clientId: stored?.client_id }),
    });
  }
}
