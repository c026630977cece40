import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson, styles } from '../../runtime/io.js';
import type { Invoke } from '../verb.js';

export interface WhoamiOptions {
  readonly json: boolean;
}

export function define(command: Command): void {
  command.description('Show who the credential stands for (GET /auth/me).').option('--json', 'print JSON');
}

export const invoke: Invoke = ({ raw, ctx }) => runWhoami(parseWhoamiOptions(raw), ctx);

export function parseWhoamiOptions(raw: Record<string, unknown>): WhoamiOptions {
  return { json: raw.json === true };
}

interface Me {
  readonly sub: string;
  readonly username: string;
  readonly email?: string;
  readonly realm_roles?: string[];
  readonly groups?: string[];
  readonly auth_method?: string;
  readonly memberships?: { slug?: string; org_id?: string; role?: string }[];
}

/** `GET /auth/me`: with --json the daemon's body as is (its field names are the API's). */
export async function runWhoami(options: WhoamiOptions, ctx: Context): Promise<void> {
  const me = (await ctx.apiClient().request({ method: 'GET', path: '/auth/me' })).body as Me;
  if (options.json) {
    printJson(ctx.io, me);
    return;
  }
  const s = styles(ctx.io.colorOut);
  const list = (values: string[] | undefined) => (values && values.length > 0 ? values.join(', ') : '-');
  const memberships = (me.memberships ?? []).map((m) => `${m.slug ?? m.org_id} (${m.role})`);
  ctx.io.out(
    [
      `${s.bold(me.username)} (${me.sub})`,
      `  email:         ${me.email || '-'}`,
      `  roles:         ${list(me.realm_roles)}`,
      `  groups:        ${list(me.groups)}`,
      `  organizations: ${list(memberships)}`,
      `  signed in by:  ${me.auth_method ?? '-'}`,
    ].join('\n') + '\n',
  );
}
