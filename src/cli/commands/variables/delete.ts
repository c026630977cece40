import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
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

/** `DELETE /variables/{variable_id}` (soft). `--json`: `{id, deleted: true}`. */
export async function runVariablesDelete(options: VariablesDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Delete variable ${options.variable} (runs no longer get it; restorable)`, options.yes);
  const client = ctx.apiClient();
  const id = await variableId(client, options.variable);
  await client.request({ method: 'DELETE', path: `/variables/${enc(id)}` });
  if (options.json) printJson(ctx.io, { id, deleted: true });
  else ctx.io.err(`Deleted variable ${id}; POST /variables/${id}/restore brings it back.\n`);
}
