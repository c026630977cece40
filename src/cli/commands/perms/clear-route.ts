import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag } from '../shared.js';
import { describeChange, permsApi } from './api.js';
import { routeTarget } from './route-target.js';

export interface ClearRouteOptions {
  readonly method: string;
  readonly path: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function parseClearRouteOptions(method: string, path: string, raw: Record<string, unknown>): ClearRouteOptions {
  return { ...routeTarget(method, path), yes: flag.yes(raw), json: flag.json(raw) };
}

/** `DELETE /settings/permissions/override?method=&path=`. */
export async function runClearRoute(options: ClearRouteOptions, ctx: Context): Promise<void> {
  const target = `${options.method} ${options.path}`;
  await confirmDestructive(ctx.io, `Clear the override of route ${target}`, options.yes);
  const change = await permsApi(ctx.apiClient()).clearRoute(options.method, options.path);
  if (options.json) printJson(ctx.io, change);
  else ctx.io.err(`${describeChange(target, change)}\n`);
}
