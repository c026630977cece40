import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import type { Member } from '../orgs/types.js';
import { enc, flag, jsonFlag, orgOf, roleOf, ROLES_HELP } from '../shared.js';
import type { Invoke } from '../verb.js';
import { memberId } from './resolve.js';

export interface MembersSetRoleOptions {
  readonly org: string;
  readonly user: string;
  readonly role: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("Change a member's role in the organization given by --org.")
      .argument('<user>', 'username or user id')
      .argument('<role>', ROLES_HELP),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runMembersSetRole(parseMembersSetRoleOptions(positionals[0]!, positionals[1]!, raw), ctx);

export function parseMembersSetRoleOptions(user: string, role: string, raw: Record<string, unknown>): MembersSetRoleOptions {
  const checked = roleOf(role, 'ROLE');
  if (checked === undefined) throw usageError('a role is needed');
  return { org: orgOf(raw), user, role: checked, json: flag.json(raw) };
}

/** `PATCH /orgs/{org_ref}/members/{user_id}`; an `idp` membership edited by hand becomes `manual`. */
export async function runMembersSetRole(options: MembersSetRoleOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await memberId(client, options.org, options.user);
  const member = (
    await client.request({ method: 'PATCH', path: `/orgs/${enc(options.org)}/members/${enc(id)}`, body: { role: options.role } })
  ).body as Member;
  if (options.json) printJson(ctx.io, member);
  else ctx.io.err(`${member.username} is now ${member.role} in ${options.org}.\n`);
}
