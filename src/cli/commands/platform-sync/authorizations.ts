import type { Command } from 'commander';
import { AUTHORIZATION_STATES, type DestructiveAuthorizationList } from '../../../shared/api/platform-sync-runs.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag, oneOf } from '../shared.js';
import type { Invoke } from '../verb.js';
import { AUTHORIZATION_COLUMNS, profilePath } from './types.js';

export interface PlatformSyncAuthorizationsOptions {
  readonly profileId: string;
  readonly state: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("A profile's destructive authorizations, newest first.")
      .argument('<profile_id>', 'the profile id')
      .option('--state <state>', `only ${AUTHORIZATION_STATES.join(', ')}`),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runPlatformSyncAuthorizations(parsePlatformSyncAuthorizationsOptions(positionals[0]!, raw), ctx);

export function parsePlatformSyncAuthorizationsOptions(profileId: string, raw: Record<string, unknown>): PlatformSyncAuthorizationsOptions {
  return { profileId, state: oneOf(flag.string(raw, 'state'), AUTHORIZATION_STATES, '--state'), json: flag.json(raw) };
}

/** `GET /platform-sync/profiles/{id}/destructive-authorizations` (up to 500). `--json`: the page. */
export async function runPlatformSyncAuthorizations(options: PlatformSyncAuthorizationsOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = { limit: '500' };
  if (options.state !== undefined) query.state = options.state;
  const path = profilePath(options.profileId, '/destructive-authorizations');
  const page = (await ctx.apiClient().request({ method: 'GET', path, query })).body as DestructiveAuthorizationList;
  if (options.json) return printJson(ctx.io, page);
  printTable(ctx.io, page.items, AUTHORIZATION_COLUMNS, 'No destructive authorizations.');
}
