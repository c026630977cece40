import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson, styles } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { Explanation } from './api.js';
import { routeTarget } from './route-target.js';

export interface ExplainOptions {
  readonly method: string;
  readonly path: string;
  readonly user: string | undefined;
  readonly realmRoles: string | undefined;
  readonly inOrg: string | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Why a caller would be allowed or refused a route.')
      .argument('<method>', 'HTTP method')
      .argument('<path>', 'the catalogue pattern'),
  )
    .option('--user <username>', 'a known user (memberships from the database); default a hypothetical caller')
    .option('--realm-roles <roles>', 'realm roles, comma-separated (they live in the identity provider)')
    .option('--in-org <org>', 'the organization the request would name (default: the platform default)');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runExplain(parseExplainOptions(positionals[0]!, positionals[1]!, raw), ctx);

export function parseExplainOptions(method: string, path: string, raw: Record<string, unknown>): ExplainOptions {
  return {
    ...routeTarget(method, path),
    user: flag.string(raw, 'user'),
    realmRoles: flag.string(raw, 'realmRoles'),
    inOrg: flag.string(raw, 'inOrg'),
    json: flag.json(raw),
  };
}

/** `GET /settings/permissions?explain=1&…`: the decision the request path would make, and why. */
export async function runExplain(options: ExplainOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = { explain: '1', method: options.method, path: options.path };
  if (options.user !== undefined) query.username = options.user;
  if (options.realmRoles !== undefined) query.realm_roles = options.realmRoles;
  if (options.inOrg !== undefined) query.org = options.inOrg;
  const e = (await ctx.apiClient().request({ method: 'GET', path: '/settings/permissions', query })).body as Explanation;
  if (options.json) return printJson(ctx.io, e);
  const s = styles(ctx.io.colorOut);
  printRecord(ctx.io, [
    ['route', `${e.route.method} ${e.route.path}`],
    ['action', e.route.action],
    ['scope', e.scope],
    ['policy', `${e.policy} (${e.source}; default ${e.default_policy})`],
    ['organization', e.organization ? `${e.organization.slug} (role ${e.organization.role ?? 'none'})` : null],
    ['decision', e.allowed ? s.green('allowed') : s.red('refused')],
    ['reason', e.reason],
    ['required roles', e.required_roles.join(', ')],
  ]);
}
