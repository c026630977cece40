import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag } from '../shared.js';
import { describeChange, permsApi } from './api.js';
import { routeTarget } from './route-target.js';

export interface SetRouteOptions {
  readonly method: string;
  /** The catalogue pattern, e.g. `/runs/{run_id}`. */
  readonly path: string;
  readonly policy: string;
  readonly json: boolean;
}

export function parseSetRouteOptions(method: string, path: string, policy: string, raw: Record<string, unknown>): SetRouteOptions {
  return { ...routeTarget(method, path), policy, json: flag.json(raw) };
}

/** `PUT /settings/permissions/override`: one catalogue route's policy. */
export async function runSetRoute(options: SetRouteOptions, ctx: Context): Promise<void> {
  const change = await permsApi(ctx.apiClient()).setRoute(options.method, options.path, options.policy);
  if (options.json) printJson(ctx.io, change);
  else ctx.io.err(`${describeChange(`${options.method} ${options.path}`, change)}\n`);
}
