import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { STATE_COLUMNS, type IacStateList } from './types.js';

export interface IacStatesListOptions {
  readonly q: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's IaC states: newest version, serial, size and who holds the lock. Never a document.")
      .option('--q <text>', 'only names containing this')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) =>
  runIacStatesList({ q: flag.string(raw, 'q'), limit: positiveNumber(raw, 'limit', '--limit'), json: flag.json(raw) }, ctx);

/** `GET /iac-states`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runIacStatesList(options: IacStatesListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (options.q !== undefined) query.q = options.q;
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/iac-states', query })).body as IacStateList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, STATE_COLUMNS, 'No IaC states.');
}
