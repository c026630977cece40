import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { enc, flag, orgOf, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { memberId } from './resolve.js';

export interface MembersRemoveOptions {
  readonly org: string;
  readonly user: string;
  readonly yes: boolean;
}

export function define(command: Command): void {
  yesFlag(command.description('Remove a member from the organization given by --org.').argument('<user>', 'username or user id'));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runMembersRemove(parseMembersRemoveOptions(positionals[0]!, raw), ctx);

export function parseMembersRemoveOptions(user: string, raw: Record<string, unknown>): MembersRemoveOptions {
  return { org: orgOf(raw), user, yes: flag.yes(raw) };
}

/** `DELETE /orgs/{org_ref}/members/{user_id}`. */
export async function runMembersRemove(options: MembersRemoveOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Remove ${options.user} from ${options.org}`, options.yes);
  const client = ctx.apiClient();
  const id = await memberId(client, options.org, options.user);
  await client.request({ method: 'DELETE', path: `/orgs/${enc(options.org)}/members/${enc(id)}` });
  ctx.io.err(`Removed ${options.user} from ${options.org}.\n`);
}
