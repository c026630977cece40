import type { Command } from 'commander';
import { revokeRefreshToken, type Revocation } from '../../auth/revoke.js';
import { DamagedCredentialsError } from '../../auth/store.js';
import type { Context } from '../../runtime/context.js';
import { styles } from '../../runtime/io.js';
import type { Invoke } from '../verb.js';

export interface LogoutOptions {}

export function define(command: Command): void {
  command.description("Revoke the profile's refresh token at the provider and forget the stored credential.");
}

export const invoke: Invoke = ({ raw, ctx }) => runLogout(parseLogoutOptions(raw), ctx);

export function parseLogoutOptions(_raw: Record<string, unknown>): LogoutOptions {
  return {};
}

/**
 * Revokes the profile's refresh token at the identity provider, then forgets the credential. A failed
 * revocation is a warning: the local credential is forgotten anyway (exit 0), since keeping it would
 * leave the user unable to log out while the provider is down. Logging out of a profile that is not
 * logged in is not an error.
 */
export async function runLogout(_options: LogoutOptions, ctx: Context): Promise<void> {
  const { profile } = ctx.globals;
  const store = await ctx.store();
  // Under the lock, so a refresh in another process cannot swap the refresh token between the two steps.
  const revocation = await store.locked(async () => {
    let stored;
    try {
      stored = await store.get(profile);
    } catch (err) {
      if (!(err instanceof DamagedCredentialsError)) throw err;
      // Nothing in it can be revoked; forgetting it is what makes the profile usable again.
      await store.removeUnlocked(profile);
      return { result: { outcome: 'damaged', backup: `${store.path}.bak` } as const, method: undefined };
    }
    if (stored === undefined) return undefined;
    const result = await revokeRefreshToken(stored);
    await store.removeUnlocked(profile);
    return { result, method: stored.method };
  });
  if (revocation === undefined) ctx.io.err(`Profile ${profile} was not logged in.\n`);
  else report(ctx, profile, revocation.result, revocation.method);
  if (ctx.env.SVC_TOKEN) ctx.io.err('SVC_TOKEN is still set and will be used.\n');
}

function report(
  ctx: Context,
  profile: string,
  revocation: Revocation | { readonly outcome: 'damaged'; readonly backup: string },
  method: string | undefined,
): void {
  const warning = styles(ctx.io.colorErr).yellow('warning');
  switch (revocation.outcome) {
    case 'damaged':
      ctx.io.err(
        `${warning}: the stored credential was damaged and is removed without revoking anything; the file as it was is in ${revocation.backup}.\n`,
      );
      break;
    case 'revoked':
      ctx.io.err(`Logged out (profile ${profile}); the refresh token is revoked at ${revocation.issuer}.\n`);
      return;
    case 'unsupported':
      ctx.io.err(`${warning}: ${revocation.issuer} has no token revocation endpoint; the refresh token stays valid until it expires.\n`);
      break;
    case 'failed':
      ctx.io.err(
        `${warning}: could not revoke the refresh token at ${revocation.issuer} (${revocation.reason}); it stays valid until it expires.\n`,
      );
      break;
    case 'nothing_to_revoke':
      if (method === 'token') ctx.io.err('The token itself stays valid; a personal access token is revoked with svc tokens revoke ID.\n');
      break;
  }
  ctx.io.err(`Logged out (profile ${profile}).\n`);
}
