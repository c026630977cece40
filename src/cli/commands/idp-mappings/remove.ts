import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { enc, flag, orgOf, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface MappingsRemoveOptions {
  readonly org: string;
  readonly id: string;
  readonly yes: boolean;
}

export function define(command: Command): void {
  yesFlag(command.description('Delete a mapping (takes effect at the next login).').argument('<id>', 'mapping id'));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runMappingsRemove(parseMappingsRemoveOptions(positionals[0]!, raw), ctx);

export function parseMappingsRemoveOptions(id: string, raw: Record<string, unknown>): MappingsRemoveOptions {
  return { org: orgOf(raw), id, yes: flag.yes(raw) };
}

/** `DELETE /orgs/{org_ref}/idp-mappings/{mapping_id}` (takes effect at the users' next login). */
export async function runMappingsRemove(options: MappingsRemoveOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Remove IdP mapping ${options.id} of ${options.org}`, options.yes);
  await ctx.apiClient().request({ method: 'DELETE', path: `/orgs/${enc(options.org)}/idp-mappings/${enc(options.id)}` });
  ctx.io.err(`Removed IdP mapping ${options.id}.\n`);
}
