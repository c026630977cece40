import type { Context } from '../../runtime/context.js';

export interface TokenOptions {}

export function parseTokenOptions(_raw: Record<string, unknown>): TokenOptions {
  return {};
}

/** Prints the access token (renewed first when nearly expired) on stdout, for scripts. */
export async function runToken(_options: TokenOptions, ctx: Context): Promise<void> {
  const credential = await (await ctx.credentials()).current();
  ctx.io.out(`${credential.accessToken}\n`);
}
