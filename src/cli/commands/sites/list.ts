import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { SITE_COLUMNS, type SitePage } from './types.js';

export interface SitesListOptions {
  readonly q: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's live sites and the shared organization's, by name.")
      .option('--q <text>', 'only those whose name, description or address contains this')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) =>
  runSitesList({ q: flag.string(raw, 'q'), limit: positiveNumber(raw, 'limit', '--limit'), json: flag.json(raw) }, ctx);

/** `GET /sites`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runSitesList(options: SitesListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.q !== undefined) query.q = options.q;
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/sites', query })).body as SitePage;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, SITE_COLUMNS, 'No sites.');
}
