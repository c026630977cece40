import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import type { Invoke } from '../verb.js';
import { defineFlowGit, parseFlowGitOptions, runFlowGit, type FlowGitOptions } from './git-sync.js';

export type FlowsPushOptions = FlowGitOptions;

export function define(command: Command): void {
  defineFlowGit(
    command,
    "Push the flow's newest committed version to its linked git file; prints the outcome and commit.",
    'commit over changes made to the file on the remote since the last sync (refused otherwise: non_fast_forward)',
  ).option('-m, --message <text>', 'the commit message (it names the flow and version unless given)');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFlowsPush(parseFlowGitOptions(positionals[0]!, raw), ctx);

/** `POST /flows/{flow_id}/push-to-git`. */
export function runFlowsPush(options: FlowsPushOptions, ctx: Context): Promise<void> {
  return runFlowGit('push-to-git', options, ctx);
}
