import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { PROFILE_COLUMNS, type SyncProfileList } from './types.js';

export interface PlatformSyncProfilesOptions {
  readonly q: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description('Sync profiles by name (platform admins).').option('--q <text>', 'only names containing this'));
}

export const invoke: Invoke = ({ raw, ctx }) => runPlatformSyncProfiles(parsePlatformSyncProfilesOptions(raw), ctx);

export function parsePlatformSyncProfilesOptions(raw: Record<string, unknown>): PlatformSyncProfilesOptions {
  return { q: flag.string(raw, 'q'), json: flag.json(raw) };
}

/** `GET /platform-sync/profiles` (up to 500). `--json`: the daemon's page. */
export async function runPlatformSyncProfiles(options: PlatformSyncProfilesOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = { limit: '500' };
  if (options.q !== undefined) query.q = options.q;
  const page = (await ctx.apiClient().request({ method: 'GET', path: '/platform-sync/profiles', query })).body as SyncProfileList;
  if (options.json) return printJson(ctx.io, page);
  printTable(ctx.io, page.items, PROFILE_COLUMNS, 'No sync profiles.');
}
