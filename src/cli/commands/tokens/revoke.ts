import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { enc, flag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface TokensRevokeOptions {
  readonly id: string;
  readonly yes: boolean;
}

export function define(command: Command): void {
  yesFlag(command.description('Revoke one token.').argument('<id>', 'token id'));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runTokensRevoke(parseTokensRevokeOptions(positionals[0]!, raw), ctx);

export function parseTokensRevokeOptions(id: string, raw: Record<string, unknown>): TokensRevokeOptions {
  return { id, yes: flag.yes(raw) };
}

/** `DELETE /api-tokens/{token_id}` (revoking twice is not an error). */
export async function runTokensRevoke(options: TokensRevokeOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Revoke token ${options.id}`, options.yes);
  await ctx.apiClient().request({ method: 'DELETE', path: `/api-tokens/${enc(options.id)}` });
  ctx.io.err(`Revoked token ${options.id}.\n`);
}
