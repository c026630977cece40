import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { needs, resolveNames, scheduleFieldFlags, scheduleFields, type ScheduleFields } from './fields.js';
import type { Schedule } from './types.js';

export interface SchedulesCreateOptions {
  readonly body: ScheduleFields & { name: string; flow_id: string; cron: string; enabled?: boolean };
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    scheduleFieldFlags(
      command.description("Create a schedule; prints its id. Params and targets are checked against the flow's inputs now."),
    ),
  ).option('--paused', 'create it paused (it does not fire until resumed)');
}

export const invoke: Invoke = ({ raw, ctx }) => runSchedulesCreate(parseSchedulesCreateOptions(raw), ctx);

export function parseSchedulesCreateOptions(raw: Record<string, unknown>): SchedulesCreateOptions {
  const fields = scheduleFields(raw);
  needs(fields.name, 'a name', 'pass --name NAME');
  needs(fields.flow_id, 'the flow to run', 'pass --flow FLOW');
  needs(fields.cron, 'a cron expression', "pass --cron '0 2 * * *' (try it first with svc schedules next)");
  return {
    body: {
      ...fields,
      name: fields.name!,
      flow_id: fields.flow_id!,
      cron: fields.cron!,
      ...(raw.paused === true ? { enabled: false } : {}),
    },
    json: flag.json(raw),
  };
}

/** `POST /schedules`. The id alone on stdout (`ID=$(svc schedules create …)`), the record on stderr; `--json` the schedule. */
export async function runSchedulesCreate(options: SchedulesCreateOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const body = await resolveNames(client, options.body);
  const created = (await client.request({ method: 'POST', path: '/schedules', body })).body as Schedule;
  const next = created.next_fire_at === null ? 'paused' : `next fire ${created.next_fire_at}`;
  ctx.io.err(
    `Created schedule ${created.name} (${created.id}) of flow ${created.flow_name ?? created.flow_id}: ${created.cron} ${created.timezone}, ${next}.\n`,
  );
  if (options.json) printJson(ctx.io, created);
  else ctx.io.out(`${created.id}\n`);
}
