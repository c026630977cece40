import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { enc, flag } from '../shared.js';

export interface TokensRevokeOptions {
  readonly id: string;
  readonly yes: boolean;
}

export function parseTokensRevokeOptions(id: string, raw: Record<string, unknown>): TokensRevokeOptions {
  return { id, yes: flag.yes(raw) };
}

/** `DELETE /api-tokens/{token_id}` (revoking twice is not an error). */
export async function runTokensRevoke(options: TokensRevokeOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Revoke token ${options.id}`, options.yes);
  await ctx.apiClient().request({ method: 'DELETE', path: `/api-tokens/${enc(options.id)}` });
  ctx.io.err(`Revoked token ${options.id}.\n`);
}
