import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { pageNumber } from '../orgs/list.js';
import type { Member, Page } from '../orgs/types.js';
import { enc, flag, jsonFlag, orgOf } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface MembersListOptions {
  readonly org: string;
  readonly json: boolean;
  readonly limit: number | undefined;
  readonly offset: number | undefined;
}

export function define(command: Command): void {
  jsonFlag(command.description('Members of the organization.').argument('[org]', 'id or slug (default: --org)'))
    .option('--limit <n>', 'at most this many (1-500)')
    .option('--offset <n>', 'skip this many');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runMembersList(parseMembersListOptions(positionals[0], raw), ctx);

export function parseMembersListOptions(org: string | undefined, raw: Record<string, unknown>): MembersListOptions {
  return { org: orgOf(raw, org), json: flag.json(raw), limit: pageNumber(raw, 'limit'), offset: pageNumber(raw, 'offset') };
}

/** `GET /orgs/{org_ref}/members`. `--json`: `{items, total, limit, offset}`. */
export async function runMembersList(options: MembersListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.limit !== undefined) query.limit = String(options.limit);
  if (options.offset !== undefined) query.offset = String(options.offset);
  const page = (await ctx.apiClient().request({ method: 'GET', path: `/orgs/${enc(options.org)}/members`, query })).body as Page<Member>;
  if (options.json) return printJson(ctx.io, page);
  printTable<Member>(
    ctx.io,
    page.items,
    [
      { header: 'USERNAME', value: (m) => m.username },
      { header: 'ROLE', value: (m) => m.role },
      { header: 'SOURCE', value: (m) => m.source },
      { header: 'EMAIL', value: (m) => m.email },
      { header: 'USER ID', value: (m) => m.user_id },
    ],
    `No members in ${options.org}.`,
  );
  if (page.total > page.offset + page.items.length)
    ctx.io.err(`Showing ${page.items.length} of ${page.total}; use --offset ${page.offset + page.items.length} for more.\n`);
}
