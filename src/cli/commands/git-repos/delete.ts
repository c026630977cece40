import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { repositoryId } from './resolve.js';

export interface GitReposDeleteOptions {
  /** A repository id or its name. */
  readonly repo: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(
    jsonFlag(
      command
        .description('Remove a git repository and its cache, for good; refused while flows link to it.')
        .argument('<repo>', 'repository id, or its name'),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runGitReposDelete({ repo: positionals[0]!, yes: flag.yes(raw), json: flag.json(raw) }, ctx);

/** `DELETE /git-repositories/{repo_id}`, asked first (or `--yes`); flows linked to it are 409 `conflict` (exit 1). `--json`: `{id, deleted: true}`. */
export async function runGitReposDelete(options: GitReposDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Remove git repository ${options.repo} and its cache (not restorable)`, options.yes);
  const client = ctx.apiClient();
  const id = await repositoryId(client, options.repo);
  await client.request({ method: 'DELETE', path: `/git-repositories/${enc(id)}` });
  if (options.json) return printJson(ctx.io, { id, deleted: true });
  ctx.io.err(`Removed git repository ${id}.\n`);
}
