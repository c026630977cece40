import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { replaceDraft } from './draft-replace.js';

export interface FlowsRevertOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Discard the flow's uncommitted edits: its draft becomes its newest version again.")
      .argument('<flow>', 'flow id, or its name'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFlowsRevert({ flow: positionals[0]!, json: flag.json(raw) }, ctx);

/** `POST /flows/{flow_id}/revert-draft`; a flow never committed is 409 `conflict` (exit 1). */
export async function runFlowsRevert(options: FlowsRevertOptions, ctx: Context): Promise<void> {
  await replaceDraft(
    ctx,
    { ...options, action: 'revert-draft' },
    (flow) => `The draft of flow ${flow.id} is version ${flow.latest_version} again.`,
  );
}
