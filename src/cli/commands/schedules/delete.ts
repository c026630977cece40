import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import { runSoftDelete, type SoftDeleted } from '../soft-delete.js';
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

const DELETED: SoftDeleted = { noun: 'schedule', collection: '/schedules', idOf: scheduleId, effect: 'it stops firing' };

/** `DELETE /schedules/{schedule_id}` (soft). `--json`: `{id, deleted: true}`. */
export function runSchedulesDelete(options: SchedulesDeleteOptions, ctx: Context): Promise<void> {
  return runSoftDelete(DELETED, { ref: options.schedule, yes: options.yes, json: options.json }, ctx);
}
