import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { ORG_COLUMNS, type OrgListItem, type Page } from './types.js';

export interface OrgsListOptions {
  readonly json: boolean;
  readonly includeInactive: boolean;
  readonly limit: number | undefined;
  readonly offset: number | undefined;
}

export function pageNumber(raw: Record<string, unknown>, key: 'limit' | 'offset'): number | undefined {
  const text = flag.string(raw, key);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw usageError(`--${key} must be a whole number, not "${text}"`);
  return Number(text);
}

export function define(command: Command): void {
  jsonFlag(command.description('Organizations you can see, with your role and why.'))
    .option('--include-inactive', 'also deactivated ones (platform admins)')
    .option('--limit <n>', 'at most this many (1-500)')
    .option('--offset <n>', 'skip this many');
}

export const invoke: Invoke = ({ raw, ctx }) => runOrgsList(parseOrgsListOptions(raw), ctx);

export function parseOrgsListOptions(raw: Record<string, unknown>): OrgsListOptions {
  return {
    json: flag.json(raw),
    includeInactive: raw.includeInactive === true,
    limit: pageNumber(raw, 'limit'),
    offset: pageNumber(raw, 'offset'),
  };
}

/** `GET /orgs`: the organizations the caller sees. `--json`: `{items, total, limit, offset}`. */
export async function runOrgsList(options: OrgsListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.includeInactive) query.include_inactive = 'true';
  if (options.limit !== undefined) query.limit = String(options.limit);
  if (options.offset !== undefined) query.offset = String(options.offset);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/orgs', query })).body as Page<OrgListItem>;
  if (options.json) return printJson(ctx.io, page);
  printTable(ctx.io, page.items, ORG_COLUMNS, 'No organizations.');
  if (page.total > page.offset + page.items.length)
    ctx.io.err(`Showing ${page.items.length} of ${page.total}; use --offset ${page.offset + page.items.length} for more.\n`);
}
