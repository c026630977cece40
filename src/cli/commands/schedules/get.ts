import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { scheduleArgument, scheduleId } from './resolve.js';
import { scheduleFields, type Schedule } from './types.js';

export interface SchedulesGetOptions {
  /** An id, or the name of one live schedule. */
  readonly schedule: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(scheduleArgument(command.description('One schedule: its expression, next and last fire, last run and last fire error.')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runSchedulesGet(parseSchedulesGetOptions(positionals[0]!, raw), ctx);

export function parseSchedulesGetOptions(schedule: string, raw: Record<string, unknown>): SchedulesGetOptions {
  return { schedule, json: flag.json(raw) };
}

/** `GET /schedules/{schedule_id}`. */
export async function runSchedulesGet(options: SchedulesGetOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await scheduleId(client, options.schedule);
  const schedule = (await client.request({ method: 'GET', path: `/schedules/${enc(id)}` })).body as Schedule;
  if (options.json) return printJson(ctx.io, schedule);
  printRecord(ctx.io, scheduleFields(schedule));
}
