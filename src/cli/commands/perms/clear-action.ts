import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { describeChange, permsApi } from './api.js';

export interface ClearActionOptions {
  readonly action: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(jsonFlag(command.description("Clear an action's override (back to the default).").argument('<action>', 'e.g. run:view')));
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runClearAction(parseClearActionOptions(positionals[0]!, raw), ctx);

export function parseClearActionOptions(action: string, raw: Record<string, unknown>): ClearActionOptions {
  return { action, yes: flag.yes(raw), json: flag.json(raw) };
}

/** `DELETE /settings/permissions/actions/override?action=`: back to the catalogue default. */
export async function runClearAction(options: ClearActionOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Clear the override of action ${options.action}`, options.yes);
  const change = await permsApi(ctx.apiClient()).clearAction(options.action);
  if (options.json) printJson(ctx.io, change);
  else ctx.io.err(`${describeChange(options.action, change)}\n`);
}
