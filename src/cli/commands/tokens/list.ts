import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { TokenList, TokenRecord } from './types.js';

export interface TokensListOptions {
  readonly user: string | undefined;
  readonly org: string | undefined;
  readonly includeRevoked: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description('List tokens (never their plaintext); --org filters by organization.'))
    .option('--user <username>', "only this user's")
    .option('--include-revoked', 'also revoked ones');
}

export const invoke: Invoke = ({ raw, ctx }) => runTokensList(parseTokensListOptions(raw), ctx);

export function parseTokensListOptions(raw: Record<string, unknown>): TokensListOptions {
  return {
    user: flag.string(raw, 'user'),
    org: flag.string(raw, 'org'),
    includeRevoked: raw.includeRevoked === true,
    json: flag.json(raw),
  };
}

/** `GET /api-tokens[?username=&org=&include_revoked=true]`. `--json`: `{items}`. */
export async function runTokensList(options: TokensListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.user !== undefined) query.username = options.user;
  if (options.org !== undefined) query.org = options.org;
  if (options.includeRevoked) query.include_revoked = 'true';
  const body = (await ctx.apiClient().request({ method: 'GET', path: '/api-tokens', query })).body as TokenList;
  if (options.json) return printJson(ctx.io, body);
  printTable<TokenRecord>(
    ctx.io,
    body.items,
    [
      { header: 'ID', value: (t) => t.id },
      { header: 'NAME', value: (t) => t.name },
      { header: 'PREFIX', value: (t) => t.token_prefix },
      { header: 'USER', value: (t) => t.user.username },
      { header: 'ORG', value: (t) => t.org.slug },
      { header: 'EXPIRES', value: (t) => t.expires_at ?? 'never' },
      { header: 'LAST USED', value: (t) => t.last_used_at },
      { header: 'REVOKED', value: (t) => t.revoked_at },
    ],
    'No tokens.',
  );
}
