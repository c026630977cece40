import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { positiveNumber } from '../runs/inputs.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { replaceDraft } from './draft-replace.js';

export interface FlowsRestoreOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly version: number;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Copy a committed version into the flow's draft (not a commit: svc flows commit makes it the newest version).")
      .argument('<flow>', 'flow id, or its name')
      .argument('<version>', 'the committed version to restore'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFlowsRestore(parseFlowsRestoreOptions(positionals, raw), ctx);

export function parseFlowsRestoreOptions(positionals: readonly string[], raw: Record<string, unknown>): FlowsRestoreOptions {
  // The positional read as the numeric flags are: a whole number from 1, else exit 2.
  const version = positiveNumber({ version: positionals[1] }, 'version', 'VERSION')!;
  return { flow: positionals[0]!, version, json: flag.json(raw) };
}

/** `POST /flows/{flow_id}/restore/{version}`; a version the flow does not have is 404 (exit 3). */
export async function runFlowsRestore(options: FlowsRestoreOptions, ctx: Context): Promise<void> {
  await replaceDraft(
    ctx,
    { ...options, action: `restore/${options.version}` },
    (flow) =>
      `Copied version ${options.version} into the draft of flow ${flow.id} (not committed; the newest version is ${flow.latest_version}).`,
  );
}
