import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import { runSoftDelete, type SoftDeleted } from '../soft-delete.js';
import type { Invoke } from '../verb.js';
import { variableArgument, variableId } from './resolve.js';

export interface VariablesDeleteOptions {
  readonly variable: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(jsonFlag(variableArgument(command.description('Soft-delete a variable: runs no longer get it (restorable through the API).'))));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runVariablesDelete({ variable: positionals[0]!, yes: flag.yes(raw), json: flag.json(raw) }, ctx);

const DELETED: SoftDeleted = { noun: 'variable', collection: '/variables', idOf: variableId, effect: 'runs no longer get it' };

/** `DELETE /variables/{variable_id}` (soft). `--json`: `{id, deleted: true}`. */
export function runVariablesDelete(options: VariablesDeleteOptions, ctx: Context): Promise<void> {
  return runSoftDelete(DELETED, { ref: options.variable, yes: options.yes, json: options.json }, ctx);
}
