import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { renderPermsMatrix } from '../../ui/render.js';
import { flag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { runActions } from './actions.js';
import { permsApi } from './api.js';

export interface BrowseOptions {
  readonly json: boolean;
  /** `svc perms browse` (refuses without a terminal) rather than `svc perms` alone (lists instead). */
  readonly explicit: boolean;
}

export function define(command: Command): void {
  command.description('Interactive action matrix: filter, pick an action, choose a policy, confirm (needs a terminal).');
}

export const invoke: Invoke = ({ raw, ctx }) => runBrowse(parseBrowseOptions(raw, true), ctx);

export function parseBrowseOptions(raw: Record<string, unknown>, explicit: boolean): BrowseOptions {
  return { json: flag.json(raw), explicit };
}

const NON_INTERACTIVE =
  'use svc perms actions, svc perms routes, svc perms set-action ACTION POLICY, svc perms clear-action ACTION --yes (each with --json)';

/**
 * The interactive matrix in a terminal. `svc perms` alone, with `--json` or without a terminal, lists
 * the action matrix instead; `svc perms browse` without a terminal refuses and names those commands.
 * Ink and React load only here, through the render module.
 */
export async function runBrowse(options: BrowseOptions, ctx: Context): Promise<void> {
  const interactive = ctx.io.stdinIsTTY && ctx.io.stdoutIsTTY;
  if (!options.explicit && (options.json || !interactive)) return runActions({ json: options.json }, ctx);
  if (options.json) throw usageError('svc perms browse is interactive and has no --json', NON_INTERACTIVE);
  if (!interactive) throw usageError('svc perms browse needs a terminal (stdin and stdout)', NON_INTERACTIVE);
  const api = permsApi(ctx.apiClient());
  await renderPermsMatrix({ actions: await api.actions(), api });
}
