import type { Command } from 'commander';
import type { FlowSummary } from '../../../shared/api/flows.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage, type Column, type OffsetPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface FlowsListOptions {
  readonly q: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's flows and the shared organization's (read-only), by name.")
      .option('--q <text>', 'only flows whose name or description contains this')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runFlowsList(parseFlowsListOptions(raw), ctx);

export function parseFlowsListOptions(raw: Record<string, unknown>): FlowsListOptions {
  return { q: flag.string(raw, 'q'), limit: positiveNumber(raw, 'limit', '--limit'), json: flag.json(raw) };
}

const COLUMNS: Column<FlowSummary>[] = [
  { header: 'ID', value: (f) => f.id },
  { header: 'NAME', value: (f) => f.name },
  { header: 'VERSION', value: (f) => f.latest_version || null },
  { header: 'DRAFT', value: (f) => (f.draft_dirty ? 'edited' : 'committed') },
  { header: 'SHARED', value: (f) => (f.read_only ? 'yes' : 'no') },
  { header: 'UPDATED', value: (f) => f.updated_at },
];

/** `GET /flows`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runFlowsList(options: FlowsListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.q !== undefined) query.q = options.q;
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/flows', query })).body as OffsetPage<FlowSummary>;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, COLUMNS, 'No flows.');
}
