import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import type { Member } from '../orgs/types.js';
import { enc, flag, jsonFlag, orgOf, roleOf, ROLES_HELP } from '../shared.js';
import type { Invoke } from '../verb.js';
import { isUuid } from '../../../shared/ids.js';

export interface MembersAddOptions {
  readonly org: string;
  /** A username, or a user id (UUID). */
  readonly user: string;
  readonly role: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description('Add a user to the organization given by --org.').argument('<user>', 'username or user id')).option(
    '--role <role>',
    `${ROLES_HELP} (default viewer)`,
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runMembersAdd(parseMembersAddOptions(positionals[0]!, raw), ctx);

export function parseMembersAddOptions(user: string, raw: Record<string, unknown>): MembersAddOptions {
  return { org: orgOf(raw), user, role: roleOf(flag.string(raw, 'role'), '--role'), json: flag.json(raw) };
}

/** `POST /orgs/{org_ref}/members` (role default viewer, source manual). */
export async function runMembersAdd(options: MembersAddOptions, ctx: Context): Promise<void> {
  const body = {
    ...(isUuid(options.user) ? { user_id: options.user } : { username: options.user }),
    ...(options.role === undefined ? {} : { role: options.role }),
  };
  const member = (await ctx.apiClient().request({ method: 'POST', path: `/orgs/${enc(options.org)}/members`, body })).body as Member;
  if (options.json) printJson(ctx.io, member);
  else ctx.io.err(`Added ${member.username} to ${options.org} as ${member.role}.\n`);
}
