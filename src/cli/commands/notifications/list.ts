import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { DESTINATION_COLUMNS, type DestinationList } from './types.js';

export interface DestinationsListOptions {
  readonly kind: string | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's notification destinations, by name (credentials appear as secret references).")
      .option('--kind <kind>', 'only this kind (email, webhook, slack, mattermost, teams)')
      .option('--include-deleted', 'also soft-deleted ones')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runDestinationsList(parseDestinationsListOptions(raw), ctx);

export function parseDestinationsListOptions(raw: Record<string, unknown>): DestinationsListOptions {
  return {
    kind: flag.string(raw, 'kind'),
    includeDeleted: raw.includeDeleted === true,
    limit: positiveNumber(raw, 'limit', '--limit'),
    json: flag.json(raw),
  };
}

/** `GET /notifications/destinations`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runDestinationsList(options: DestinationsListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.kind !== undefined) query.kind = options.kind;
  if (options.includeDeleted) query.include_deleted = 'true';
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/notifications/destinations', query })).body as DestinationList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, DESTINATION_COLUMNS, 'No notification destinations.');
}
