import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { profilePath, type SyncPlan } from './types.js';

export interface PlatformSyncPlanOptions {
  readonly profileId: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Plan a profile: read its source and show what an apply would change, conflicts and destructive changes marked.')
      .argument('<profile_id>', 'the profile id'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runPlatformSyncPlan(parsePlatformSyncPlanOptions(positionals[0]!, raw), ctx);

export function parsePlatformSyncPlanOptions(profileId: string, raw: Record<string, unknown>): PlatformSyncPlanOptions {
  return { profileId, json: flag.json(raw) };
}

/** `POST /platform-sync/profiles/{id}/plan`: the plan's text, then one line per conflict and the plan id to apply. */
export async function runPlatformSyncPlan(options: PlatformSyncPlanOptions, ctx: Context): Promise<void> {
  const plan = (await ctx.apiClient().request({ method: 'POST', path: profilePath(options.profileId, '/plan') })).body as SyncPlan;
  if (options.json) return printJson(ctx.io, plan);
  ctx.io.out(plan.text.endsWith('\n') ? plan.text : `${plan.text}\n`);
  for (const change of plan.changes.filter((c) => c.conflict)) {
    ctx.io.out(`! conflict ${change.family} ${change.key}: ${change.change_id} (${change.resolution ?? 'unresolved'})\n`);
  }
  if (plan.summary.destructive > 0)
    ctx.io.out(`${plan.summary.destructive} destructive change(s): apply needs a destructive authorization.\n`);
  ctx.io.err(`Plan ${plan.id}: svc platform-sync apply ${plan.profile_id} ${plan.id}\n`);
}
