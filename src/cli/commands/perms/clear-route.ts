import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { describeChange, permsApi } from './api.js';
import { routeTarget } from './route-target.js';

export interface ClearRouteOptions {
  readonly method: string;
  readonly path: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(
    jsonFlag(
      command.description("Clear a route's override.").argument('<method>', 'HTTP method').argument('<path>', 'the catalogue pattern'),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runClearRoute(parseClearRouteOptions(positionals[0]!, positionals[1]!, raw), ctx);

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
