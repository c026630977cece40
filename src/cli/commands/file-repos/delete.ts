import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { repositoryId } from '../files/resolve.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';

export interface FileReposDeleteOptions {
  /** A repository id or its name. */
  readonly repo: string;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(
    jsonFlag(
      command
        .description('Delete an empty file repository (its folders go with it); one holding files or artifacts is refused.')
        .argument('<repo>', 'repository id, or its name'),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runFileReposDelete({ repo: positionals[0]!, yes: flag.yes(raw), json: flag.json(raw) }, ctx);

/** `DELETE /file-repositories/{id}`, asked first (or `--yes`); one not empty is 409 `file_repository_not_empty` (exit 1). `--json`: `{id, deleted: true}`. */
export async function runFileReposDelete(options: FileReposDeleteOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Delete file repository ${options.repo} (not restorable)`, options.yes);
  const client = ctx.apiClient();
  const id = await repositoryId(client, options.repo);
  await client.request({ method: 'DELETE', path: `/file-repositories/${enc(id)}` });
  if (options.json) return printJson(ctx.io, { id, deleted: true });
  ctx.io.err(`Deleted file repository ${id}.\n`);
}
