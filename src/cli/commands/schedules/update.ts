import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, exclusive, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import { resolveNames, scheduleFieldFlags, scheduleFields, type ScheduleFields } from './fields.js';
import { scheduleArgument, scheduleId } from './resolve.js';
import type { Schedule } from './types.js';

export interface SchedulesUpdateOptions {
  readonly schedule: string;
  /** The PATCH body: only what was given. */
  readonly changes: ScheduleFields & { enabled?: boolean };
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    scheduleFieldFlags(scheduleArgument(command.description('Change a schedule (a new expression or zone reschedules from now).'))),
  ).option('--unpin', 'run the newest committed flow version again');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runSchedulesUpdate(parseSchedulesUpdateOptions(positionals[0]!, raw), ctx);

export function parseSchedulesUpdateOptions(schedule: string, raw: Record<string, unknown>): SchedulesUpdateOptions {
  exclusive(raw, ['flowVersion', '--flow-version'], ['unpin', '--unpin']);
  const changes = scheduleFields(raw);
  if (raw.unpin === true) changes.flow_version = null;
  someChange(
    changes,
    '--name, --description, --flow, --flow-version/--unpin, --cron, --tz, --param/--params-json, --target or --misfire (svc schedules pause|resume switch it off and on)',
  );
  return { schedule, changes, json: flag.json(raw) };
}

/** `PATCH /schedules/{schedule_id}` with only the fields given. */
export async function runSchedulesUpdate(options: SchedulesUpdateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await scheduleId(client, options.schedule);
  const body = await resolveNames(client, options.changes);
  const schedule = (await client.request({ method: 'PATCH', path: `/schedules/${enc(id)}`, body })).body as Schedule;
  if (options.json) return printJson(ctx.io, schedule);
  ctx.io.err(
    `Updated schedule ${schedule.name} (${schedule.id}): ${Object.keys(options.changes).sort().join(', ')}; next fire ${schedule.next_fire_at ?? 'none'}.\n`,
  );
}
