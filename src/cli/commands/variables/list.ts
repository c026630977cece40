import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { VARIABLE_COLUMNS, type VariableList } from './types.js';

export interface VariablesListOptions {
  readonly q: string | undefined;
  readonly type: string | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's variables and the shared organization's, by name.")
      .option('--q <text>', 'only names containing this')
      .option('--type <type>', 'only this type: string, number, boolean, json, secret_ref')
      .option('--include-deleted', "also the organization's soft-deleted ones")
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runVariablesList(parseVariablesListOptions(raw), ctx);

export function parseVariablesListOptions(raw: Record<string, unknown>): VariablesListOptions {
  return {
    q: flag.string(raw, 'q'),
    type: flag.string(raw, 'type'),
    includeDeleted: raw.includeDeleted === true,
    limit: positiveNumber(raw, 'limit', '--limit'),
    json: flag.json(raw),
  };
}

/** `GET /variables`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runVariablesList(options: VariablesListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.q !== undefined) query.q = options.q;
  if (options.type !== undefined) query.type = options.type;
  if (options.includeDeleted) query.include_deleted = 'true';
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/variables', query })).body as VariableList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, VARIABLE_COLUMNS, 'No variables.');
}
