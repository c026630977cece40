import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { profilePath, RUN_COLUMNS, type SyncRun } from './types.js';

export interface PlatformSyncApplyOptions {
  readonly profileId: string;
  readonly planId: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Apply a saved plan of a profile, all or nothing; refused when stale, in conflict or destructive without authorization.')
      .argument('<profile_id>', 'the profile id')
      .argument('<plan_id>', 'the plan id `svc platform-sync plan` printed'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runPlatformSyncApply(parsePlatformSyncApplyOptions(positionals[0]!, positionals[1]!, raw), ctx);

export function parsePlatformSyncApplyOptions(profileId: string, planId: string, raw: Record<string, unknown>): PlatformSyncApplyOptions {
  return { profileId, planId, json: flag.json(raw) };
}

/** `POST /platform-sync/profiles/{id}/apply`: the sync run; a refusal is the daemon's problem, printed as an error. */
export async function runPlatformSyncApply(options: PlatformSyncApplyOptions, ctx: Context): Promise<void> {
  const run = (
    await ctx.apiClient().request({ method: 'POST', path: profilePath(options.profileId, '/apply'), body: { plan_id: options.planId } })
  ).body as SyncRun;
  if (options.json) return printJson(ctx.io, run);
  printTable(ctx.io, [run], RUN_COLUMNS, '');
}
