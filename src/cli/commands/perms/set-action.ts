import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag } from '../shared.js';
import { describeChange, permsApi } from './api.js';

export interface SetActionOptions {
  readonly action: string;
  readonly policy: string;
  readonly json: boolean;
}

export function parseSetActionOptions(action: string, policy: string, raw: Record<string, unknown>): SetActionOptions {
  return { action, policy, json: flag.json(raw) };
}

/** `PUT /settings/permissions/actions/override`; the daemon checks the rules (422 names the `rule`). */
export async function runSetAction(options: SetActionOptions, ctx: Context): Promise<void> {
  const change = await permsApi(ctx.apiClient()).setAction(options.action, options.policy);
  if (options.json) printJson(ctx.io, change);
  else ctx.io.err(`${describeChange(options.action, change)}\n`);
}
