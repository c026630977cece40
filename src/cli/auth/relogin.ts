import { CliError } from '../errors.js';
import { askDefaultYes } from '../runtime/ask.js';
import type { BaseContext } from '../runtime/base-context.js';
import type { IO } from '../runtime/io.js';
import type { LoginOptions } from './sign-in.js';
import type { StoredProfile } from './store.js';

/**
 * The stored credential of a profile has expired and renewing it without the user is impossible or
 * failed. Exit 4 with the login command as its hint, unless the user agrees to log in again.
 */
export class SessionExpiredError extends CliError {
  override readonly name = 'SessionExpiredError';
  constructor(
    readonly profile: string,
    readonly stored: StoredProfile,
    hint: string,
  ) {
    super('auth_required', `the credential of profile "${profile}" has expired and cannot be renewed`, { hint });
  }
}

/** How the profile's login can be repeated here, or undefined when it cannot be without new input. */
export function repeatableLogin(stored: StoredProfile, env: NodeJS.ProcessEnv): LoginOptions | undefined {
  const interactive = { browser: true, timeoutMs: 300_000, callbackPort: undefined, clientId: undefined, clientSecret: undefined } as const;
  if (stored.method === 'device') return { ...interactive, mode: 'interactive', device: true };
  if (stored.method === 'pkce') return { ...interactive, mode: 'interactive', device: false };
  // The secret is never stored: only a secret in the environment can repeat a client-credentials login.
  const secret = env.SVC_CLIENT_SECRET;
  const envClient = env.SVC_CLIENT_ID;
  if (stored.method === 'client_credentials' && stored.client_id !== null && secret && (!envClient || envClient === stored.client_id)) {
    return { ...interactive, mode: 'client_credentials', device: false, clientId: stored.client_id, clientSecret: secret };
  }
  return undefined;
}

const isCi = (env: NodeJS.ProcessEnv) => env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';

/**
 * May svc ask "log in again?" instead of failing: stdin and stderr are terminals (the question goes to
 * stderr, the answer comes from stdin; stdout and `--json` play no part, since a prompt never touches
 * stdout), stdin is not held in raw mode by a full-screen view, `CI` is not set, and the profile's
 * login can be repeated (device or browser; client credentials only with the secret in the environment).
 */
export function mayOfferRelogin(
  io: Pick<IO, 'stdin' | 'stdinIsTTY' | 'stderrIsTTY'>,
  env: NodeJS.ProcessEnv,
  stored: StoredProfile,
): boolean {
  if (!io.stdinIsTTY || !io.stderrIsTTY || io.stdin.isRaw === true) return false;
  if (isCi(env)) return false;
  return repeatableLogin(stored, env) !== undefined;
}

/** What the offer needs from the outside world, injectable for tests. */
export interface Relogin {
  ask(io: IO, question: string, signal: AbortSignal): Promise<boolean>;
  /** Runs the profile's login again and stores the new credential. */
  login(ctx: BaseContext, expired: SessionExpiredError, options: LoginOptions): Promise<void>;
}

export const terminalRelogin: Relogin = {
  ask: askDefaultYes,
  async login(ctx, expired, options) {
    const { signIn } = await import('./sign-in.js');
    const { server } = expired.stored;
    await signIn({ ...ctx, globals: { ...ctx.globals, profile: expired.profile, server } }, server, options);
  },
};

/**
 * Runs `attempt`; when it fails with an expired session and a prompt is possible, asks whether to log
 * in again, runs the profile's login flow, and runs `attempt` once more (a second expiry is final).
 * A no, Ctrl-C at the question, or a failed login leaves the original error: exit 4 and the command.
 */
export async function withRelogin<T>(ctx: BaseContext, attempt: () => Promise<T>, relogin: Relogin = terminalRelogin): Promise<T> {
  let expired: SessionExpiredError;
  try {
    return await attempt();
  } catch (err) {
    if (!(err instanceof SessionExpiredError) || !mayOfferRelogin(ctx.io, ctx.env, err.stored)) throw err;
    expired = err;
  }
  const question = `Session expired for profile ${expired.profile} on server ${expired.stored.server}. Log in again? [Y/n] `;
  if (!(await relogin.ask(ctx.io, question, ctx.signal))) throw expired;
  try {
    await relogin.login(ctx, expired, repeatableLogin(expired.stored, ctx.env)!);
  } catch (err) {
    // Ctrl-C during the sign-in cancels as `svc login` does (130); any other failure leaves the expiry.
    if (ctx.signal.aborted || (err instanceof CliError && err.kind === 'interrupted')) throw err;
    ctx.io.err(`svc: logging in again failed: ${(err as Error).message}\n`);
    throw expired;
  }
  return attempt();
}
