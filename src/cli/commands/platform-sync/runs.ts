import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { profilePath, RUN_COLUMNS, type SyncRunList } from './types.js';

export interface PlatformSyncRunsOptions {
  readonly profileId: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description("A profile's sync runs (applies and exports), newest first.").argument('<profile_id>', 'the profile id'));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runPlatformSyncRuns(parsePlatformSyncRunsOptions(positionals[0]!, raw), ctx);

export function parsePlatformSyncRunsOptions(profileId: string, raw: Record<string, unknown>): PlatformSyncRunsOptions {
  return { profileId, json: flag.json(raw) };
}

/** `GET /platform-sync/profiles/{id}/runs` (up to 500). `--json`: the daemon's page. */
export async function runPlatformSyncRuns(options: PlatformSyncRunsOptions, ctx: Context): Promise<void> {
  const path = profilePath(options.profileId, '/runs');
  const page = (await ctx.apiClient().request({ method: 'GET', path, query: { limit: '500' } })).body as SyncRunList;
  if (options.json) return printJson(ctx.io, page);
  printTable(ctx.io, page.items, RUN_COLUMNS, 'No sync runs.');
}
