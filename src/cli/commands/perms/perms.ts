import type { Command } from 'commander';
import { jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { parseBrowseOptions, runBrowse } from './browse.js';

/**
 * `svc perms` itself, the group that is also a verb (cli/cli's `<noun>/<noun>.go`): alone in a
 * terminal the interactive matrix, else (or with --json) the action matrix. Its subcommands are verbs
 * of their own.
 */
export function define(command: Command): void {
  jsonFlag(
    command.description(
      'Permission matrix and overrides. Alone in a terminal: the interactive matrix; else (or with --json) the action matrix.',
    ),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runBrowse(parseBrowseOptions(raw, false), ctx);
