import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { stateArgument, stateFields, type IacState } from './types.js';

export interface IacStatesGetOptions {
  readonly state: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(stateArgument(command.description('One IaC state: its newest version and its lock (who, what, since when, for which run).')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runIacStatesGet({ state: positionals[0]!, json: flag.json(raw) }, ctx);

/** `GET /iac-states/{name}`. */
export async function runIacStatesGet(options: IacStatesGetOptions, ctx: Context): Promise<void> {
  const state = (await ctx.apiClient().request({ method: 'GET', path: `/iac-states/${enc(options.state)}` })).body as IacState;
  if (options.json) return printJson(ctx.io, state);
  printRecord(ctx.io, stateFields(state));
}
