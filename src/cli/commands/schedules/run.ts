import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import type { Run } from '../runs/types.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { scheduleArgument, scheduleId } from './resolve.js';

export interface SchedulesRunOptions {
  readonly schedule: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(scheduleArgument(command.description("Start the schedule's run now; prints the run's id (the next fire time stays).")));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runSchedulesRun(parseSchedulesRunOptions(positionals[0]!, raw), ctx);

export function parseSchedulesRunOptions(schedule: string, raw: Record<string, unknown>): SchedulesRunOptions {
  return { schedule, json: flag.json(raw) };
}

/** `POST /schedules/{schedule_id}/run`. The run's id alone on stdout (follow it with `svc runs watch`); `--json` the run. */
export async function runSchedulesRun(options: SchedulesRunOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await scheduleId(client, options.schedule);
  const run = (await client.request({ method: 'POST', path: `/schedules/${enc(id)}/run` })).body as Run;
  ctx.io.err(`Started run ${run.name} (${run.id}) of flow ${run.flow_name} version ${run.flow_version}: ${run.status}.\n`);
  if (options.json) printJson(ctx.io, run);
  else ctx.io.out(`${run.id}\n`);
}
