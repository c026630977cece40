import type { Command } from 'commander';
import { VARIABLE_TYPES, type VariableType } from '../../../shared/variables/variable-rules.js';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag, oneOf } from '../shared.js';
import type { Invoke } from '../verb.js';
import { variableByName } from './resolve.js';
import { variableFields, type Variable } from './types.js';

export interface VariablesSetOptions {
  readonly name: string;
  readonly type: VariableType | undefined;
  /** The value as typed; parsed by the type (the variable's own when --type is not given, else string). */
  readonly value: string;
  readonly description: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description(
        "Create or change the organization's variable NAME. VALUE is read by its type: number, boolean (true/false) and json are parsed; a secret_ref is a secret reference, never a secret's value.",
      )
      .argument('<name>', 'variable name')
      .argument('<value>', 'its value')
      .option('--type <type>', `${VARIABLE_TYPES.join('|')} (default: the variable's type, or string for a new one)`)
      .option('--description <text>', 'what it is for'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runVariablesSet(parseVariablesSetOptions(positionals[0]!, positionals[1]!, raw), ctx);

export function parseVariablesSetOptions(name: string, value: string, raw: Record<string, unknown>): VariablesSetOptions {
  const type = oneOf(flag.string(raw, 'type'), VARIABLE_TYPES, '--type');
  return { name, type, value, description: flag.string(raw, 'description'), json: flag.json(raw) };
}

/** The text typed on the command line as a value of `type`; a usage error (exit 2) when it is not one. */
export function parseValue(type: VariableType, text: string): unknown {
  switch (type) {
    case 'string':
    case 'secret_ref':
      return text;
    case 'number': {
      const number = Number(text);
      if (text.trim() === '' || !Number.isFinite(number)) throw usageError(`"${text}" is not a number`);
      return number;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw usageError('a boolean value is true or false');
      return text === 'true';
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw usageError('a json value must be JSON text', `for example '{"mtu": 9000}'`);
      }
  }
}

/**
 * `PATCH /variables/{id}` when the organization has a live variable of the name, else `POST /variables`
 * (a shared organization's variable of the name is shadowed by the new one, as runs see it).
 */
export async function runVariablesSet(options: VariablesSetOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const found = await variableByName(client, options.name);
  const own = found && !found.shared ? found : undefined;
  const type = options.type ?? own?.type ?? 'string';
  const body = {
    value: parseValue(type, options.value),
    ...(options.type !== undefined || !own ? { type } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
  };
  const variable = own
    ? ((await client.request({ method: 'PATCH', path: `/variables/${enc(own.id)}`, body })).body as Variable)
    : ((await client.request({ method: 'POST', path: '/variables', body: { name: options.name, ...body } })).body as Variable);
  if (options.json) return printJson(ctx.io, variable);
  ctx.io.err(`${own ? 'Changed' : 'Created'} variable ${variable.name} (${variable.id}).\n`);
  printRecord(ctx.io, variableFields(variable));
}
