import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printTable } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { permsApi, type ActionRow } from './api.js';

export interface ActionsOptions {
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description('List the action matrix: default, override and effective policy of each action.'));
}

export const invoke: Invoke = ({ raw, ctx }) => runActions(parseActionsOptions(raw), ctx);

export function parseActionsOptions(raw: Record<string, unknown>): ActionsOptions {
  return { json: flag.json(raw) };
}

/** The action matrix: each action's default, override and effective policy. `--json`: `{actions: [...]}` as the daemon sends it. */
export async function runActions(options: ActionsOptions, ctx: Context): Promise<void> {
  const actions = await permsApi(ctx.apiClient()).actions();
  if (options.json) return printJson(ctx.io, { actions });
  printTable<ActionRow>(
    ctx.io,
    actions,
    [
      { header: 'ACTION', value: (a) => a.action },
      { header: 'DEFAULT', value: (a) => a.default_policy },
      { header: 'OVERRIDE', value: (a) => a.override },
      { header: 'EFFECTIVE', value: (a) => a.effective_policy },
      { header: 'ROUTES', value: (a) => a.routes },
      { header: 'OVERRIDABLE', value: (a) => (a.overridable ? 'yes' : 'no') },
      { header: 'UPDATED BY', value: (a) => a.updated_by },
    ],
    'No actions.',
  );
}
