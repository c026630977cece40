import type { Context } from '../../runtime/context.js';

export interface LogoutOptions {}

export function parseLogoutOptions(_raw: Record<string, unknown>): LogoutOptions {
  return {};
}

/** Forgets the profile's credential. Logging out of a profile that is not logged in is not an error. */
export async function runLogout(_options: LogoutOptions, ctx: Context): Promise<void> {
  const { profile } = ctx.globals;
  const removed = await (await ctx.store()).remove(profile);
  ctx.io.err(removed ? `Logged out (profile ${profile}).\n` : `Profile ${profile} was not logged in.\n`);
  if (ctx.env.SVC_TOKEN) ctx.io.err('SVC_TOKEN is still set and will be used.\n');
}
