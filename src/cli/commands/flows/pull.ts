import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import type { Invoke } from '../verb.js';
import { defineFlowGit, parseFlowGitOptions, runFlowGit, type FlowGitOptions } from './git-sync.js';

export type FlowsPullOptions = FlowGitOptions;

export function define(command: Command): void {
  defineFlowGit(
    command,
    "Pull the flow's linked git file into its draft (or a new version, as the link says); prints the outcome and commit.",
    'overwrite a draft with changes of its own (refused otherwise: draft_dirty, exit 1)',
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFlowsPull(parseFlowGitOptions(positionals[0]!, raw), ctx);

/** `POST /flows/{flow_id}/sync-from-git`. */
export function runFlowsPull(options: FlowsPullOptions, ctx: Context): Promise<void> {
  return runFlowGit('sync-from-git', options, ctx);
}
