import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { describeChange, permsApi } from './api.js';
import { routeTarget } from './route-target.js';

export interface SetRouteOptions {
  readonly method: string;
  /** The catalogue pattern, e.g. `/runs/{run_id}`. */
  readonly path: string;
  readonly policy: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Override the policy of one route.')
      .argument('<method>', 'HTTP method')
      .argument('<path>', 'the catalogue pattern, e.g. /runs/{run_id}')
      .argument('<policy>', 'e.g. operator'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runSetRoute(parseSetRouteOptions(positionals[0]!, positionals[1]!, positionals[2]!, raw), ctx);

export function parseSetRouteOptions(method: string, path: string, policy: string, raw: Record<string, unknown>): SetRouteOptions {
  return { ...routeTarget(method, path), policy, json: flag.json(raw) };
}

/** `PUT /settings/permissions/override`: one catalogue route's policy. */
export async function runSetRoute(options: SetRouteOptions, ctx: Context): Promise<void> {
  const change = await permsApi(ctx.apiClient()).setRoute(options.method, options.path, options.policy);
  if (options.json) printJson(ctx.io, change);
  else ctx.io.err(`${describeChange(`${options.method} ${options.path}`, change)}\n`);
}
