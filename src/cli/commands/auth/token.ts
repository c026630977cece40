import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import type { Invoke } from '../verb.js';

export interface TokenOptions {}

export function define(command: Command): void {
  command.description('Print the access token on standard output (renewed first when nearly expired).');
}

export const invoke: Invoke = ({ raw, ctx }) => runToken(parseTokenOptions(raw), ctx);

export function parseTokenOptions(_raw: Record<string, unknown>): TokenOptions {
  return {};
}

/** Prints the access token (renewed first when nearly expired) on stdout, for scripts. */
export async function runToken(_options: TokenOptions, ctx: Context): Promise<void> {
  const credential = await (await ctx.credentials()).current();
  ctx.io.out(`${credential.accessToken}\n`);
}
