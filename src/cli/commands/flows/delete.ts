import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { flowId } from '../runs/resolve.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import { runSoftDelete, type SoftDeleted } from '../soft-delete.js';
import type { Invoke } from '../verb.js';

export interface FlowsDeleteOptions {
  /** A flow id or name. */
  readonly flow: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(
    jsonFlag(
      command
        .description('Soft-delete a flow: hidden from lists and reads (restorable through the API).')
        .argument('<flow>', 'flow id, or its name'),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runFlowsDelete({ flow: positionals[0]!, yes: flag.yes(raw), json: flag.json(raw) }, ctx);

const DELETED: SoftDeleted = { noun: 'flow', collection: '/flows', idOf: flowId };

/** `DELETE /flows/{flow_id}` (soft). `--json`: `{id, deleted: true}`. */
export function runFlowsDelete(options: FlowsDeleteOptions, ctx: Context): Promise<void> {
  return runSoftDelete(DELETED, { ref: options.flow, yes: options.yes, json: options.json }, ctx);
}
