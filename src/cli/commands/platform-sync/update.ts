import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { clearable, collect, exclusive, flag, jsonFlag, someChange } from '../shared.js';
import type { Invoke } from '../verb.js';
import { type ProfileSourceFlags, sourceAndTargetFlags, sourceBody, sourceOf, targetBody, targetOf } from './create.js';
import { PROFILE_COLUMNS, profilePath, type SyncProfile } from './types.js';

export interface PlatformSyncUpdateOptions {
  readonly profileId: string;
  readonly name: string | undefined;
  /** null clears it. */
  readonly description: string | null | undefined;
  readonly source: ProfileSourceFlags | undefined;
  readonly target: { readonly org: string | undefined } | undefined;
  /** [] keeps every family in step. */
  readonly families: readonly string[] | undefined;
  readonly prune: boolean | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    sourceAndTargetFlags(
      command
        .description('Change a sync profile: its name, description, source, target, families or pruning; plans made before it are stale.')
        .argument('<profile_id>', 'the profile id')
        .option('--name <name>', 'a new name'),
    )
      .option('--family <name>', 'keep only these families in step (repeatable; replaces the list)', collect)
      .option('--all-families', 'keep every family in step')
      .option('--prune', 'delete what the source no longer has (destructive: applies need an authorization)')
      .option('--no-prune', 'stop deleting what the source no longer has')
      .option('--description <text>', 'a description; empty clears it'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runPlatformSyncUpdate(parsePlatformSyncUpdateOptions(positionals[0]!, raw), ctx);

export function parsePlatformSyncUpdateOptions(profileId: string, raw: Record<string, unknown>): PlatformSyncUpdateOptions {
  exclusive(raw, ['family', '--family'], ['allFamilies', '--all-families']);
  const families = flag.strings(raw, 'family');
  const options = {
    profileId,
    name: flag.string(raw, 'name'),
    description: clearable(raw, 'description'),
    source: sourceOf(raw),
    target: targetOf(raw),
    families: raw.allFamilies === true ? [] : families.length > 0 ? families : undefined,
    // With both --prune and --no-prune defined, commander leaves `prune` unset unless one is given.
    prune: typeof raw.prune === 'boolean' ? raw.prune : undefined,
    json: flag.json(raw),
  };
  const { profileId: _id, json: _json, ...changes } = options;
  someChange(changes, '--name, --description, a source, a target, --family, --all-families, --prune or --no-prune');
  return options;
}

/** `PATCH /platform-sync/profiles/{profile_id}` of the fields given: the profile as one table row; `--json` the profile. */
export async function runPlatformSyncUpdate(options: PlatformSyncUpdateOptions, ctx: Context): Promise<void> {
  const body: Record<string, unknown> = {};
  if (options.name !== undefined) body.name = options.name;
  if (options.description !== undefined) body.description = options.description;
  if (options.source !== undefined) body.source = await sourceBody(options.source, ctx);
  if (options.target !== undefined) body.target = targetBody(options.target.org);
  if (options.families !== undefined) body.families = options.families;
  if (options.prune !== undefined) body.prune = options.prune;
  const profile = (await ctx.apiClient().request({ method: 'PATCH', path: profilePath(options.profileId), body })).body as SyncProfile;
  if (options.json) return printJson(ctx.io, profile);
  printTable(ctx.io, [profile], PROFILE_COLUMNS, '');
}
