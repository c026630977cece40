import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { scheduleArgument, scheduleId } from './resolve.js';

export interface SchedulesDeleteOptions {
  readonly schedule: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(jsonFlag(scheduleArgument(command.description('Soft-delete a schedule: it stops firing (restorable through the API).'))));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runSchedulesDelete(parseSchedulesDeleteOptions(positionals[0]!, raw), ctx);

export function parseSchedulesDeleteOptions(schedule: string, raw: Record<string, unknown>): SchedulesDeleteOptions {
  return { schedule, yes: flag.yes(raw), json: flag.json(raw) };
}

/** `DELETE /schedules/{schedule_id}` (soft). `--json`: `{id, deleted: true}`. */
export async function runSchedulesDelete(options: SchedulesDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Delete schedule ${options.schedule} (it stops firing; restorable)`, options.yes);
  const client = ctx.apiClient();
  const id = await scheduleId(client, options.schedule);
  await client.request({ method: 'DELETE', path: `/schedules/${enc(id)}` });
  if (options.json) printJson(ctx.io, { id, deleted: true });
  else ctx.io.err(`Deleted schedule ${id}; POST /schedules/${id}/restore brings it back.\n`);
}
