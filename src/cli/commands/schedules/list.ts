import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { flowId } from '../runs/resolve.js';
import { exclusive, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { SCHEDULE_COLUMNS, type ScheduleList } from './types.js';

export interface SchedulesListOptions {
  /** A flow id or name. */
  readonly flow: string | undefined;
  readonly enabled: boolean | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's schedules, by name.")
      .option('--flow <flow>', "only this flow's schedules (id, or its name)")
      .option('--enabled', 'only enabled ones')
      .option('--paused', 'only paused (disabled) ones')
      .option('--include-deleted', 'also soft-deleted ones')
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runSchedulesList(parseSchedulesListOptions(raw), ctx);

export function parseSchedulesListOptions(raw: Record<string, unknown>): SchedulesListOptions {
  exclusive(raw, ['enabled', '--enabled'], ['paused', '--paused']);
  const enabled = raw.enabled === true ? true : raw.paused === true ? false : undefined;
  return {
    flow: flag.string(raw, 'flow'),
    enabled,
    includeDeleted: raw.includeDeleted === true,
    limit: positiveNumber(raw, 'limit', '--limit'),
    json: flag.json(raw),
  };
}

/** `GET /schedules`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runSchedulesList(options: SchedulesListOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const query: Record<string, string> = {};
  if (options.flow !== undefined) query.flow_id = await flowId(client, options.flow);
  if (options.enabled !== undefined) query.enabled = String(options.enabled);
  if (options.includeDeleted) query.include_deleted = 'true';
  if (options.limit !== undefined) query.limit = String(options.limit);
  const page = (await client.request({ method: 'GET', path: '/schedules', query })).body as ScheduleList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, SCHEDULE_COLUMNS, 'No schedules.');
}
