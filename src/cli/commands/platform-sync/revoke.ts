import type { Command } from 'commander';
import type { DestructiveAuthorization } from '../../../shared/api/platform-sync-runs.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { profilePath } from './types.js';

export interface PlatformSyncRevokeOptions {
  readonly profileId: string;
  readonly authorizationId: string;
  readonly reason: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Revoke a destructive authorization before it expires; audited.')
      .argument('<profile_id>', 'the profile id')
      .argument('<authorization_id>', 'the authorization id')
      .option('--reason <text>', 'why (kept in the audit log)'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runPlatformSyncRevoke(parsePlatformSyncRevokeOptions(positionals[0]!, positionals[1]!, raw), ctx);

export function parsePlatformSyncRevokeOptions(
  profileId: string,
  authorizationId: string,
  raw: Record<string, unknown>,
): PlatformSyncRevokeOptions {
  return { profileId, authorizationId, reason: flag.string(raw, 'reason'), json: flag.json(raw) };
}

/** `POST /platform-sync/profiles/{id}/destructive-authorizations/{authorization_id}/revoke`; `--json` the revoked grant. */
export async function runPlatformSyncRevoke(options: PlatformSyncRevokeOptions, ctx: Context): Promise<void> {
  const path = profilePath(options.profileId, `/destructive-authorizations/${enc(options.authorizationId)}/revoke`);
  const body = options.reason === undefined ? {} : { reason: options.reason };
  const revoked = (await ctx.apiClient().request({ method: 'POST', path, body })).body as DestructiveAuthorization;
  if (options.json) return printJson(ctx.io, revoked);
  ctx.io.err(`Revoked destructive authorization ${revoked.id} of profile ${revoked.profile_id}.\n`);
}
