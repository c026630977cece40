import { Option, type Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { collect, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { positiveNumber } from './inputs.js';
import { flowId } from './resolve.js';
import { RUN_COLUMNS, type RunPage } from './types.js';

export interface RunsListOptions {
  /** Statuses to keep (the daemon checks the values). */
  readonly statuses: string[];
  /** A flow id or name. */
  readonly flow: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's runs, newest first.")
      .addOption(
        new Option(
          '--status <status>',
          'only these: queued, running, paused, awaiting_approval, succeeded, failed, cancelled (repeat, or comma-separate)',
        ).argParser(collect),
      )
      .option('--flow <flow>', "only this flow's runs (id, or its name)")
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runRunsList(parseRunsListOptions(raw), ctx);

export function parseRunsListOptions(raw: Record<string, unknown>): RunsListOptions {
  return {
    statuses: flag.strings(raw, 'status').flatMap((s) => s.split(',').filter((v) => v.trim() !== '')),
    flow: flag.string(raw, 'flow'),
    limit: positiveNumber(raw, 'limit', '--limit'),
    json: flag.json(raw),
  };
}

/** `GET /runs`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runRunsList(options: RunsListOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const query: Record<string, string> = {};
  if (options.statuses.length > 0) query.status = options.statuses.join(',');
  if (options.flow !== undefined) query.flow_id = await flowId(client, options.flow);
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await client.request({ method: 'GET', path: '/runs', query })).body as RunPage;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, RUN_COLUMNS, 'No runs.');
}
