import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { getRun, runArgument } from './resolve.js';
import { runFields } from './types.js';

export interface RunsGetOptions {
  readonly run: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(runArgument(command.description('One run.')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runRunsGet(parseRunsGetOptions(positionals[0]!, raw), ctx);

export function parseRunsGetOptions(run: string, raw: Record<string, unknown>): RunsGetOptions {
  return { run, json: flag.json(raw) };
}

/** `GET /runs/{run_id}`. */
export async function runRunsGet(options: RunsGetOptions, ctx: Context): Promise<void> {
  const run = await getRun(ctx.apiClient(), options.run);
  if (options.json) return printJson(ctx.io, run);
  printRecord(ctx.io, runFields(run));
  if (run.status === 'awaiting_approval') ctx.io.err(`Run ${run.id} is awaiting approval: svc approvals list --run ${run.id}\n`);
}
