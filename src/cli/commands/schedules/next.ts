import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { ValidateCronAnswer } from './types.js';

export interface SchedulesNextOptions {
  readonly cron: string;
  readonly timezone: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description(
        'Check a cron expression: its next five fire times in the zone and what it means (exit 1 naming the field when invalid).',
      )
      .argument('<cron>', "the expression, quoted: '30 2 * * 1-5'")
      .option('--tz <zone>', 'IANA time zone (default UTC)'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runSchedulesNext(parseSchedulesNextOptions(positionals[0]!, raw), ctx);

export function parseSchedulesNextOptions(cron: string, raw: Record<string, unknown>): SchedulesNextOptions {
  return { cron, timezone: flag.string(raw, 'tz'), json: flag.json(raw) };
}

/** `POST /schedules/validate-cron`: the five times on stdout, one a line, the description on stderr; `--json` the answer. */
export async function runSchedulesNext(options: SchedulesNextOptions, ctx: Context): Promise<void> {
  const body = { cron: options.cron, ...(options.timezone === undefined ? {} : { timezone: options.timezone }) };
  const answer = (await ctx.apiClient().request({ method: 'POST', path: '/schedules/validate-cron', body })).body as ValidateCronAnswer;
  if (options.json) return printJson(ctx.io, answer);
  ctx.io.err(`${answer.description} (${answer.timezone})\n`);
  for (const at of answer.next_runs) ctx.io.out(`${at}\n`);
}
