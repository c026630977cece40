import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { RevokedTokens } from './types.js';

export interface TokensRevokeUserOptions {
  readonly username: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(jsonFlag(command.description('Revoke every token of a user.').argument('<username>', 'the user')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runTokensRevokeUser(parseTokensRevokeUserOptions(positionals[0]!, raw), ctx);

export function parseTokensRevokeUserOptions(username: string, raw: Record<string, unknown>): TokensRevokeUserOptions {
  return { username, yes: flag.yes(raw), json: flag.json(raw) };
}

/** `DELETE /api-tokens/by-user/{username}`. `--json`: `{revoked: n}`. */
export async function runTokensRevokeUser(options: TokensRevokeUserOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Revoke every token of ${options.username}`, options.yes);
  const body = (await ctx.apiClient().request({ method: 'DELETE', path: `/api-tokens/by-user/${enc(options.username)}` }))
    .body as RevokedTokens;
  if (options.json) printJson(ctx.io, body);
  else ctx.io.err(`Revoked ${body.revoked} token(s) of ${options.username}.\n`);
}
