import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { enc, flag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface OrgsDeleteOptions {
  readonly org: string;
  readonly yes: boolean;
}

export function define(command: Command): void {
  yesFlag(
    command
      .description('Delete an organization with everything it owns (flows, runs, secrets, variables, inventory, members, …); no undo.')
      .argument('<org>', 'id or slug'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runOrgsDelete(parseOrgsDeleteOptions(positionals[0]!, raw), ctx);

export function parseOrgsDeleteOptions(org: string, raw: Record<string, unknown>): OrgsDeleteOptions {
  return { org, yes: flag.yes(raw) };
}

/** `DELETE /orgs/{org_ref}`: with everything the organization owns (docs/orgs-api.md). */
export async function runOrgsDelete(options: OrgsDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(
    ctx.io,
    `Delete organization ${options.org} with everything it owns (flows, runs, secrets, variables, inventory, members)`,
    options.yes,
  );
  await ctx.apiClient().request({ method: 'DELETE', path: `/orgs/${enc(options.org)}` });
  ctx.io.err(`Deleted organization ${options.org}.\n`);
}
