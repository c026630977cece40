import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { variableArgument, variableId } from './resolve.js';
import { variableFields, type Variable } from './types.js';

export interface VariablesGetOptions {
  readonly variable: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(variableArgument(command.description('One variable: its type, value (a secret_ref shows its reference) and description.')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runVariablesGet({ variable: positionals[0]!, json: flag.json(raw) }, ctx);

/** `GET /variables/{variable_id}`. */
export async function runVariablesGet(options: VariablesGetOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await variableId(client, options.variable);
  const variable = (await client.request({ method: 'GET', path: `/variables/${enc(id)}` })).body as Variable;
  if (options.json) return printJson(ctx.io, variable);
  printRecord(ctx.io, variableFields(variable));
}
