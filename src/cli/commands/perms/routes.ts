import { Option, type Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag, oneOf } from '../shared.js';
import type { Invoke } from '../verb.js';
import { permsApi, type RouteRow } from './api.js';

const SOURCES = ['default', 'action_override', 'route_override'] as const;

export interface RoutesOptions {
  readonly json: boolean;
  readonly action: string | undefined;
  readonly source: RouteRow['source'] | undefined;
}

export function define(command: Command): void {
  jsonFlag(command.description('List the route matrix (effective policy of each route and where it comes from).'))
    .option('--action <action>', 'only the routes of this action')
    .addOption(
      new Option('--source <source>', 'only routes whose policy comes from here').choices(['default', 'action_override', 'route_override']),
    );
}

export const invoke: Invoke = ({ raw, ctx }) => runRoutes(parseRoutesOptions(raw), ctx);

export function parseRoutesOptions(raw: Record<string, unknown>): RoutesOptions {
  const source = oneOf(flag.string(raw, 'source'), SOURCES, '--source');
  return { json: flag.json(raw), action: flag.string(raw, 'action'), source };
}

/** The route matrix, filtered here (the daemon's list takes no query). `--json`: `{routes: [...]}`. */
export async function runRoutes(options: RoutesOptions, ctx: Context): Promise<void> {
  const routes = (await permsApi(ctx.apiClient()).routes()).filter(
    (r) => (options.action === undefined || r.action === options.action) && (options.source === undefined || r.source === options.source),
  );
  if (options.json) return printJson(ctx.io, { routes });
  printTable<RouteRow>(
    ctx.io,
    routes,
    [
      { header: 'METHOD', value: (r) => r.method },
      { header: 'PATH', value: (r) => r.path },
      { header: 'ACTION', value: (r) => r.action },
      { header: 'SCOPE', value: (r) => r.scope },
      { header: 'DEFAULT', value: (r) => r.default_policy },
      { header: 'EFFECTIVE', value: (r) => r.effective_policy },
      { header: 'SOURCE', value: (r) => r.source },
    ],
    'No routes match.',
  );
}
