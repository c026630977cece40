import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { runArgument } from './resolve.js';
import type { Run } from './types.js';

/** The control commands of a run (`POST /runs/{run_id}/<command>`), which cancel, pause and resume share. */
export type RunCommand = 'cancel' | 'pause' | 'resume';

export interface RunsControlOptions {
  readonly run: string;
  readonly json: boolean;
}

const DONE: Record<RunCommand, string> = { cancel: 'Cancelled', pause: 'Paused', resume: 'Resumed' };

export const defineControl = (description: string) => (command: Command) => void jsonFlag(runArgument(command.description(description)));

export const invokeControl =
  (command: RunCommand): Invoke =>
  ({ positionals, raw, ctx }) =>
    runRunsControl(command, parseRunsControlOptions(positionals[0]!, raw), ctx);

export function parseRunsControlOptions(run: string, raw: Record<string, unknown>): RunsControlOptions {
  return { run, json: flag.json(raw) };
}

/**
 * `POST /runs/{run_id}/cancel|pause|resume`: the daemon moves the row (a move its state forbids is 409
 * `invalid_run_state`, exit 1) and the worker holding the run acts on it. `--json`: the run after the move.
 */
export async function runRunsControl(command: RunCommand, options: RunsControlOptions, ctx: Context): Promise<void> {
  const run = (await ctx.apiClient().request({ method: 'POST', path: `/runs/${enc(options.run)}/${command}` })).body as Run;
  if (options.json) return printJson(ctx.io, run);
  ctx.io.err(`${DONE[command]} run ${run.id}: ${run.status}.\n`);
}
