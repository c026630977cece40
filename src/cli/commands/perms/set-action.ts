import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { describeChange, permsApi } from './api.js';

export interface SetActionOptions {
  readonly action: string;
  readonly policy: string;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description('Override the policy of an action (all its routes).')
      .argument('<action>', 'e.g. run:view')
      .argument('<policy>', 'e.g. admin'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runSetAction(parseSetActionOptions(positionals[0]!, positionals[1]!, raw), ctx);

export function parseSetActionOptions(action: string, policy: string, raw: Record<string, unknown>): SetActionOptions {
  return { action, policy, json: flag.json(raw) };
}

/** `PUT /settings/permissions/actions/override`; the daemon checks the rules (422 names the `rule`). */
export async function runSetAction(options: SetActionOptions, ctx: Context): Promise<void> {
  const change = await permsApi(ctx.apiClient()).setAction(options.action, options.policy);
  if (options.json) printJson(ctx.io, change);
  else ctx.io.err(`${describeChange(options.action, change)}\n`);
}
