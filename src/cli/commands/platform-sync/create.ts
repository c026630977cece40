import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson, readStdin } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { collect, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { PROFILE_COLUMNS, type SyncProfile } from './types.js';

/** Where the profile's bundle comes from: exactly one of the three source flags. */
export type ProfileSourceFlags =
  | { readonly kind: 'bundle'; readonly path: string }
  | { readonly kind: 'file'; readonly fileId: string }
  | { readonly kind: 'installation'; readonly baseUrl: string; readonly tokenRef: string; readonly org: string | undefined };

export interface PlatformSyncCreateOptions {
  readonly name: string;
  readonly description: string | undefined;
  readonly source: ProfileSourceFlags;
  /** The organization the profile lands in; undefined: the platform scope. */
  readonly targetOrg: string | undefined;
  readonly families: readonly string[];
  readonly prune: boolean;
  readonly json: boolean;
}

/** The flags naming a profile's source (exactly one kind) and target, which create and update share. */
export function sourceAndTargetFlags(command: Command): Command {
  return command
    .option('--bundle-file <path>', 'source: this bundle file (YAML), kept in the profile; - for stdin')
    .option('--file-id <id>', 'source: a file of the file repositories holding the bundle')
    .option('--from-url <url>', "source: another installation's export (its API base URL)")
    .option('--token-ref <ref>', "with --from-url: the other installation's token as a secret reference")
    .option('--from-org <slug>', 'with --from-url: its organization to export (default: its platform scope)')
    .option('--target-org <slug>', 'land in this organization')
    .option('--platform', 'land in the platform scope');
}

export function define(command: Command): void {
  jsonFlag(
    sourceAndTargetFlags(
      command
        .description('Make a sync profile: a source bundle kept in step with an organization or the platform scope.')
        .argument('<name>', "the profile's name"),
    )
      .option('--family <name>', 'keep only this family in step (repeatable; default: every family)', collect)
      .option('--prune', 'delete what the source no longer has (destructive: applies need an authorization)')
      .option('--description <text>', 'a description'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runPlatformSyncCreate(parsePlatformSyncCreateOptions(positionals[0]!, raw), ctx);

export function parsePlatformSyncCreateOptions(name: string, raw: Record<string, unknown>): PlatformSyncCreateOptions {
  const target = targetOf(raw);
  if (target === undefined) throw usageError('give exactly one target', 'pass --target-org SLUG or --platform');
  const source = sourceOf(raw);
  if (source === undefined)
    throw usageError('give exactly one source', 'pass --bundle-file PATH, --file-id ID or --from-url URL --token-ref REF');
  return {
    name,
    description: flag.string(raw, 'description'),
    source,
    targetOrg: target.org,
    families: flag.strings(raw, 'family'),
    prune: raw.prune === true,
    json: flag.json(raw),
  };
}

/** The target the flags name: an organization or the platform scope; undefined when none; both exits 2. */
export function targetOf(raw: Record<string, unknown>): { readonly org: string | undefined } | undefined {
  const org = flag.string(raw, 'targetOrg');
  if (org !== undefined && raw.platform === true) throw usageError('give one target', 'pass --target-org SLUG or --platform, not both');
  if (org === undefined && raw.platform !== true) return undefined;
  return { org };
}

/** The source the flags name; undefined when none; more than one exits 2. */
export function sourceOf(raw: Record<string, unknown>): ProfileSourceFlags | undefined {
  const path = flag.string(raw, 'bundleFile');
  const fileId = flag.string(raw, 'fileId');
  const baseUrl = flag.string(raw, 'fromUrl');
  const tokenRef = flag.string(raw, 'tokenRef');
  const given = [path, fileId, baseUrl].filter((v) => v !== undefined).length;
  if (given === 0) return undefined;
  if (given > 1) throw usageError('give one source', 'pass --bundle-file PATH, --file-id ID or --from-url URL --token-ref REF');
  if (path !== undefined) return { kind: 'bundle', path };
  if (fileId !== undefined) return { kind: 'file', fileId };
  if (tokenRef === undefined) throw usageError('--from-url needs --token-ref', "pass the other installation's token as a secret reference");
  return { kind: 'installation', baseUrl: baseUrl!, tokenRef, org: flag.string(raw, 'fromOrg') };
}

/** The API's `source` for the flags' one. */
export async function sourceBody(source: ProfileSourceFlags, ctx: Context): Promise<Record<string, unknown>> {
  if (source.kind === 'bundle') {
    return { kind: 'bundle', bundle: source.path === '-' ? await readStdin(ctx.io) : await readFile(source.path, 'utf8') };
  }
  if (source.kind === 'file') return { kind: 'file', file_id: source.fileId };
  return { kind: 'installation', base_url: source.baseUrl, token_ref: source.tokenRef, ...(source.org ? { org: source.org } : {}) };
}

/** `POST /platform-sync/profiles`: the new profile as one table row (its id first); `--json` the profile. */
export async function runPlatformSyncCreate(options: PlatformSyncCreateOptions, ctx: Context): Promise<void> {
  const body: Record<string, unknown> = {
    name: options.name,
    source: await sourceBody(options.source, ctx),
    target: targetBody(options.targetOrg),
    prune: options.prune,
  };
  if (options.description !== undefined) body.description = options.description;
  if (options.families.length > 0) body.families = options.families;
  const profile = (await ctx.apiClient().request({ method: 'POST', path: '/platform-sync/profiles', body })).body as SyncProfile;
  if (options.json) return printJson(ctx.io, profile);
  printTable(ctx.io, [profile], PROFILE_COLUMNS, '');
  ctx.io.err(`Created sync profile ${profile.id}: svc platform-sync plan ${profile.id}\n`);
}

/** The API's `target`: the organization given, else the platform scope. */
export function targetBody(org: string | undefined): Record<string, unknown> {
  return org === undefined ? { scope: 'platform' } : { scope: 'org', org };
}
