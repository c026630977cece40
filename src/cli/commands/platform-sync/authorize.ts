import type { Command } from 'commander';
import type { DestructiveAuthorization } from '../../../shared/api/platform-sync-runs.js';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { AUTHORIZATION_COLUMNS, profilePath } from './types.js';

export interface PlatformSyncAuthorizeOptions {
  readonly profileId: string;
  readonly reason: string;
  readonly expiresInSeconds: number | undefined;
  readonly planId: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Authorize destructive changes (deletes by prune) of a profile's applies, for a while; audited.")
      .argument('<profile_id>', 'the profile id')
      .requiredOption('--reason <text>', 'why (kept in the audit log)')
      .option('--expires-in <seconds>', 'its life in seconds (default 3600, at most 86400)')
      .option('--plan <plan_id>', 'only for this plan of the profile'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runPlatformSyncAuthorize(parsePlatformSyncAuthorizeOptions(positionals[0]!, raw), ctx);

export function parsePlatformSyncAuthorizeOptions(profileId: string, raw: Record<string, unknown>): PlatformSyncAuthorizeOptions {
  const expires = flag.string(raw, 'expiresIn');
  if (expires !== undefined && !/^\d+$/.test(expires)) throw usageError(`--expires-in takes whole seconds, not "${expires}"`);
  return {
    profileId,
    reason: flag.string(raw, 'reason') ?? '',
    expiresInSeconds: expires === undefined ? undefined : Number(expires),
    planId: flag.string(raw, 'plan'),
    json: flag.json(raw),
  };
}

/** `POST /platform-sync/profiles/{id}/destructive-authorizations`: the grant as one table row; `--json` the grant. */
export async function runPlatformSyncAuthorize(options: PlatformSyncAuthorizeOptions, ctx: Context): Promise<void> {
  const body: Record<string, unknown> = { reason: options.reason };
  if (options.expiresInSeconds !== undefined) body.expires_in_seconds = options.expiresInSeconds;
  if (options.planId !== undefined) body.plan_id = options.planId;
  const path = profilePath(options.profileId, '/destructive-authorizations');
  const granted = (await ctx.apiClient().request({ method: 'POST', path, body })).body as DestructiveAuthorization;
  if (options.json) return printJson(ctx.io, granted);
  printTable(ctx.io, [granted], AUTHORIZATION_COLUMNS, '');
}
