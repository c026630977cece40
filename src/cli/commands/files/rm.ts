import type { Command } from 'commander';
import { confirmDestructive } from '../../runtime/confirm.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { fileArgument, fileId, repoFlag } from './resolve.js';

export interface FilesRmOptions {
  readonly file: string;
  readonly repo: string | undefined;
  readonly force: boolean;
  readonly yes: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  yesFlag(
    jsonFlag(
      repoFlag(
        fileArgument(
          command.description('Delete a file for good, its bytes too (no restore); refused while flows or unfinished runs use it.'),
        ),
        'look the path up in this repository',
      ).option('--force', 'delete it even while flows, unfinished runs or inventory providers use it'),
    ),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runFilesRm(
    { file: positionals[0]!, repo: flag.string(raw, 'repo'), force: raw.force === true, yes: flag.yes(raw), json: flag.json(raw) },
    ctx,
  );

/** `DELETE /files/{file_id}` (`force=true` with --force). A used file is 409 `file_in_use` (exit 1). `--json`: `{id, deleted: true}`. */
export async function runFilesRm(options: FilesRmOptions, ctx: Context): Promise<void> {
  await confirmDestructive(ctx.io, `Delete file ${options.file} for good (no restore)`, options.yes);
  const client = ctx.apiClient();
  const id = await fileId(client, options.file, options.repo);
  await client.request({ method: 'DELETE', path: `/files/${enc(id)}`, ...(options.force ? { query: { force: 'true' } } : {}) });
  if (options.json) printJson(ctx.io, { id, deleted: true });
  else ctx.io.err(`Deleted file ${id}.\n`);
}
