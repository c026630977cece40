import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { enc, flag } from '../shared.js';

export interface OrgsDeleteOptions {
  readonly org: string;
  readonly yes: boolean;
}

export function parseOrgsDeleteOptions(org: string, raw: Record<string, unknown>): OrgsDeleteOptions {
  return { org, yes: flag.yes(raw) };
}

/** `DELETE /orgs/{org_ref}`: with its memberships, IdP mappings and tokens. */
export async function runOrgsDelete(options: OrgsDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Delete organization ${options.org} with its members, IdP mappings and tokens`, options.yes);
  await ctx.apiClient().request({ method: 'DELETE', path: `/orgs/${enc(options.org)}` });
  ctx.io.err(`Deleted organization ${options.org}.\n`);
}
