import { Option, type Command } from 'commander';
import { usageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { paramsOf, positiveNumber, targetsOf } from '../runs/inputs.js';
import { withDeviceIds, withFlowId } from '../runs/resolve.js';
import { collect, flag } from '../shared.js';

export const MISFIRE_POLICIES = ['last', 'none', 'all'] as const;

/** The schedule fields create and update share, as the API names them; absent flags leave fields out. */
export interface ScheduleFields {
  name?: string;
  description?: string | null;
  /** A flow id, or a name resolved when the request is made (`resolveNames`). */
  flow_id?: string;
  flow_version?: number | null;
  cron?: string;
  timezone?: string;
  params?: Record<string, unknown>;
  targets?: Record<string, string[]>;
  misfire_policy?: string;
}

/** The flags of the fields create and update share, read back by `scheduleFields`. */
export function scheduleFieldFlags(command: Command): Command {
  return command
    .option('--name <name>', 'label')
    .option('--description <text>', 'description ("" clears it)')
    .option('--flow <flow>', 'the flow it runs (id, or its name)')
    .option('--flow-version <n>', 'pin this committed version (default: the newest committed)')
    .option('--cron <expression>', 'five cron fields (minute hour day-of-month month day-of-week) or @hourly, @daily, …')
    .option('--tz <zone>', 'IANA time zone of the expression (default UTC)')
    .addOption(new Option('--param <key=value>', 'a param (repeat); the value is sent as JSON when it parses as JSON').argParser(collect))
    .option('--params-json <json>', 'params as one JSON object, or @FILE to read it; --param entries go over it')
    .addOption(
      new Option('--target <role=device>', 'devices of a target role, by id or name (repeat; several may be comma-separated)').argParser(
        collect,
      ),
    )
    .addOption(
      new Option('--misfire <policy>', 'after downtime: last (run once, default), none, all (each, up to a cap)').choices(MISFIRE_POLICIES),
    );
}

/** The fields given as flags. Params, targets and the expression are the daemon's to judge (422/400 naming the field). */
export function scheduleFields(raw: Record<string, unknown>): ScheduleFields {
  const fields: ScheduleFields = {};
  const name = flag.string(raw, 'name');
  if (name !== undefined) fields.name = name;
  if (typeof raw.description === 'string') fields.description = raw.description === '' ? null : raw.description;
  const flow = flag.string(raw, 'flow');
  if (flow !== undefined) fields.flow_id = flow;
  const version = positiveNumber(raw, 'flowVersion', '--flow-version');
  if (version !== undefined) fields.flow_version = version;
  const cron = flag.string(raw, 'cron');
  if (cron !== undefined) fields.cron = cron;
  const tz = flag.string(raw, 'tz');
  if (tz !== undefined) fields.timezone = tz;
  const params = paramsOf(raw);
  if (params !== undefined) fields.params = params;
  const targets = targetsOf(raw);
  if (targets !== undefined) fields.targets = targets;
  const misfire = flag.string(raw, 'misfire');
  if (misfire !== undefined) fields.misfire_policy = misfire;
  return fields;
}

/** The body with `--flow`'s name and `--target`'s device names (where they are names) made ids. */
export async function resolveNames(client: ApiClient, fields: ScheduleFields): Promise<ScheduleFields> {
  return withDeviceIds(client, await withFlowId(client, fields));
}

export function needs(value: unknown, what: string, hint: string): void {
  if (value === undefined) throw usageError(`svc schedules create needs ${what}`, hint);
}
