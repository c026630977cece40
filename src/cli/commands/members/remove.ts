import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { enc, flag, orgOf } from '../shared.js';
import { memberId } from './resolve.js';

export interface MembersRemoveOptions {
  readonly org: string;
  readonly user: string;
  readonly yes: boolean;
}

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
