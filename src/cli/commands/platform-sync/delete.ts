import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { profilePath } from './types.js';

export interface PlatformSyncDeleteOptions {
  readonly profileId: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(
    jsonFlag(
      command
        .description('Delete a sync profile with its plans, runs and authorizations (what it applied stays).')
        .argument('<profile_id>', 'the profile id'),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runPlatformSyncDelete(parsePlatformSyncDeleteOptions(positionals[0]!, raw), ctx);

export function parsePlatformSyncDeleteOptions(profileId: string, raw: Record<string, unknown>): PlatformSyncDeleteOptions {
  return { profileId, yes: flag.yes(raw), json: flag.json(raw) };
}

/** `DELETE /platform-sync/profiles/{id}`. `--json`: `{id, deleted: true}`. */
export async function runPlatformSyncDelete(options: PlatformSyncDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Delete sync profile ${options.profileId} with its plans, runs and authorizations`, options.yes);
  await ctx.apiClient().request({ method: 'DELETE', path: profilePath(options.profileId) });
  if (options.json) printJson(ctx.io, { id: options.profileId, deleted: true });
  else ctx.io.err(`Deleted sync profile ${options.profileId}.\n`);
}
