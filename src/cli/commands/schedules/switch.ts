import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { scheduleArgument, scheduleId } from './resolve.js';
import type { Schedule } from './types.js';

/** What pause and resume share: `PATCH /schedules/{schedule_id}` with `{enabled}`. */
export interface SchedulesSwitchOptions {
  readonly schedule: string;
  readonly json: boolean;
}

export const defineSwitch = (description: string) => (command: Command) =>
  void jsonFlag(scheduleArgument(command.description(description)));

export const invokeSwitch =
  (enabled: boolean): Invoke =>
  ({ positionals, raw, ctx }) =>
    runSchedulesSwitch(enabled, parseSchedulesSwitchOptions(positionals[0]!, raw), ctx);

export function parseSchedulesSwitchOptions(schedule: string, raw: Record<string, unknown>): SchedulesSwitchOptions {
  return { schedule, json: flag.json(raw) };
}

/** Pause (`enabled: false`, no next fire time) or resume (`enabled: true`, the next fire time from now). `--json`: the schedule. */
export async function runSchedulesSwitch(enabled: boolean, options: SchedulesSwitchOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await scheduleId(client, options.schedule);
  const schedule = (await client.request({ method: 'PATCH', path: `/schedules/${enc(id)}`, body: { enabled } })).body as Schedule;
  if (options.json) return printJson(ctx.io, schedule);
  ctx.io.err(
    enabled
      ? `Resumed schedule ${schedule.name} (${schedule.id}): next fire ${schedule.next_fire_at ?? 'none'}.\n`
      : `Paused schedule ${schedule.name} (${schedule.id}).\n`,
  );
}
