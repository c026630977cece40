import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc } from '../shared.js';
import type { Invoke } from '../verb.js';
import { stateArgument, versionNumber } from './types.js';

export interface IacStatesPullOptions {
  readonly state: string;
  readonly version: number | undefined;
}

export function define(command: Command): void {
  stateArgument(
    command.description('Print a state document on stdout, as `terraform state pull` does: the newest, or VERSION. It may hold secrets.'),
  ).argument('[version]', 'this version instead of the newest');
}

export const invoke: Invoke = ({ positionals, ctx }) => runIacStatesPull(parseIacStatesPullOptions(positionals[0]!, positionals[1]), ctx);

export function parseIacStatesPullOptions(state: string, version: string | undefined): IacStatesPullOptions {
  return { state, version: version === undefined ? undefined : versionNumber(version) };
}

/**
 * `GET /iac-states/{name}/state` (204 while nothing was written: nothing on stdout, a note on stderr) or
 * `GET /iac-states/{name}/versions/{version}/content`.
 */
export async function runIacStatesPull(options: IacStatesPullOptions, ctx: Context): Promise<void> {
  const base = `/iac-states/${enc(options.state)}`;
  const path = options.version === undefined ? `${base}/state` : `${base}/versions/${options.version}/content`;
  const answer = await ctx.apiClient().request({ method: 'GET', path });
  if (answer.status === 204) return ctx.io.err(`State ${options.state} has no version yet.\n`);
  printJson(ctx.io, answer.body);
}
