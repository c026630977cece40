import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import type { Member } from '../orgs/types.js';
import { enc, flag, orgOf, roleOf } from '../shared.js';
import { UUID } from './resolve.js';

export interface MembersAddOptions {
  readonly org: string;
  /** A username, or a user id (UUID). */
  readonly user: string;
  readonly role: string | undefined;
  readonly json: boolean;
}

export function parseMembersAddOptions(user: string, raw: Record<string, unknown>): MembersAddOptions {
  return { org: orgOf(raw), user, role: roleOf(flag.string(raw, 'role'), '--role'), json: flag.json(raw) };
}

/** `POST /orgs/{org_ref}/members` (role default viewer, source manual). */
export async function runMembersAdd(options: MembersAddOptions, ctx: Context): Promise<void> {
  const body = {
    ...(UUID.test(options.user) ? { user_id: options.user } : { username: options.user }),
    ...(options.role === undefined ? {} : { role: options.role }),
  };
  const member = (await ctx.apiClient().request({ method: 'POST', path: `/orgs/${enc(options.org)}/members`, body })).body as Member;
  if (options.json) printJson(ctx.io, member);
  else ctx.io.err(`Added ${member.username} to ${options.org} as ${member.role}.\n`);
}
