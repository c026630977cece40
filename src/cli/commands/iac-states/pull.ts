import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { saveDownload } from '../../runtime/download.js';
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
 * `GET /iac-states/{name}/versions/{version}/content`: the document's bytes on stdout, as written.
 */
export async function runIacStatesPull(options: IacStatesPullOptions, ctx: Context): Promise<void> {
  const base = `/iac-states/${enc(options.state)}`;
  const path = options.version === undefined ? `${base}/state` : `${base}/versions/${options.version}/content`;
  const response = await ctx.apiClient().open({ method: 'GET', path });
  if (response.status === 204) {
    await response.arrayBuffer();
    return ctx.io.err(`State ${options.state} has no version yet.\n`);
  }
  // The bytes as stored: parsing and printing again would round numbers beyond 2^53 and reorder nothing
  // else, but a state pushed back from that copy would not be the one written.
  await saveDownload(ctx.io, response, '-', undefined, `state ${options.state}`);
}
