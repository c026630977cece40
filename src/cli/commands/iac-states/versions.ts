import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { positiveNumber } from '../runs/inputs.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { stateArgument, VERSION_COLUMNS, type IacStateVersionList } from './types.js';

export interface IacStatesVersionsOptions {
  readonly state: string;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    stateArgument(
      command
        .description("An IaC state's versions, newest first: serial, where each came from, who or which run wrote it.")
        .option('--limit <n>', 'at most this many (1-500, default 50)'),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runIacStatesVersions({ state: positionals[0]!, limit: positiveNumber(raw, 'limit', '--limit'), json: flag.json(raw) }, ctx);

/** `GET /iac-states/{name}/versions`. `--json`: the daemon's page. */
export async function runIacStatesVersions(options: IacStatesVersionsOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = options.limit === undefined ? {} : { limit: String(options.limit) };
  const path = `/iac-states/${enc(options.state)}/versions`;
  const page = (await ctx.apiClient().request({ method: 'GET', path, query })).body as IacStateVersionList;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, VERSION_COLUMNS, 'No versions.');
}
