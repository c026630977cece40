import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { stateArgument, type IacStateVersion, versionNumber } from './types.js';

export interface IacStatesRollbackOptions {
  readonly state: string;
  readonly version: number;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    stateArgument(
      command.description("Make an earlier version's document the newest again, as a new version (refused while the state is locked)."),
    ).argument('<version>', 'the version to bring back'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runIacStatesRollback(parseIacStatesRollbackOptions(positionals[0]!, positionals[1]!, raw), ctx);

export function parseIacStatesRollbackOptions(state: string, version: string, raw: Record<string, unknown>): IacStatesRollbackOptions {
  return { state, version: versionNumber(version), json: flag.json(raw) };
}

/** `POST /iac-states/{name}/rollback`: the new version on stdout. A lock held is 423 `iac_state_locked` (exit 1). */
export async function runIacStatesRollback(options: IacStatesRollbackOptions, ctx: Context): Promise<void> {
  const path = `/iac-states/${enc(options.state)}/rollback`;
  const created = (await ctx.apiClient().request({ method: 'POST', path, body: { version: options.version } })).body as IacStateVersion;
  if (options.json) return printJson(ctx.io, created);
  ctx.io.err(`State ${options.state}: version ${created.version} holds version ${options.version}'s document.\n`);
  printRecord(ctx.io, [
    ['version', created.version],
    ['serial', created.serial],
    ['source', created.source],
    ['rolled_back_from', created.rolled_back_from],
    ['sha256', created.sha256],
  ]);
}
