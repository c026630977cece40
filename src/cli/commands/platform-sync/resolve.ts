import type { Command } from 'commander';
import { RESOLUTIONS, type ConflictResolution, type Resolution } from '../../../shared/api/platform-sync-plans.js';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { profilePath } from './types.js';

export interface PlatformSyncResolveOptions {
  readonly profileId: string;
  readonly changeId: string;
  readonly resolution: Resolution;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Resolve a plan's conflict: the apply writes the source's version (take_source) or leaves the target's (keep_target).")
      .argument('<profile_id>', 'the profile id')
      .argument('<change_id>', 'the change id `svc platform-sync plan` printed after `! conflict`')
      .argument('<resolution>', RESOLUTIONS.join(' or ')),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runPlatformSyncResolve(parsePlatformSyncResolveOptions(positionals[0]!, positionals[1]!, positionals[2]!, raw), ctx);

export function parsePlatformSyncResolveOptions(
  profileId: string,
  changeId: string,
  resolution: string,
  raw: Record<string, unknown>,
): PlatformSyncResolveOptions {
  if (!(RESOLUTIONS as readonly string[]).includes(resolution)) {
    throw usageError(`the resolution must be ${RESOLUTIONS.join(' or ')}, not "${resolution}"`);
  }
  return { profileId, changeId, resolution: resolution as Resolution, json: flag.json(raw) };
}

/** `POST /platform-sync/profiles/{id}/conflicts/{change_id}/resolve`; `--json` the recorded resolution. */
export async function runPlatformSyncResolve(options: PlatformSyncResolveOptions, ctx: Context): Promise<void> {
  const resolved = (
    await ctx.apiClient().request({
      method: 'POST',
      path: profilePath(options.profileId, `/conflicts/${enc(options.changeId)}/resolve`),
      body: { resolution: options.resolution },
    })
  ).body as ConflictResolution;
  if (options.json) return printJson(ctx.io, resolved);
  ctx.io.err(`Conflict ${resolved.change_id}: ${resolved.resolution}; plan again before applying if the source changed.\n`);
}
