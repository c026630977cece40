import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { refuseExisting, saveDownload } from '../../runtime/download.js';
import { enc, flag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { fileArgument, fileId, repoFlag } from './resolve.js';
import type { FileView } from './types.js';

export interface FilesDownloadOptions {
  readonly file: string;
  readonly repo: string | undefined;
  /** A local path, `-` for stdout, or undefined: the file's name in the current directory. */
  readonly output: string | undefined;
  readonly clobber: boolean;
}

export function define(command: Command): void {
  repoFlag(
    fileArgument(command.description("Stream a file's bytes to a local file or stdout, checked against its SHA-256 on the way.")),
    'look the path up in this repository',
  )
    .option('-o, --output <path>', "where to write: a path, or - for stdout (default: the file's name in the current directory)")
    .option('--clobber', 'overwrite a local file of that name');
}

export const invoke: Invoke = ({ positionals, raw, ctx }) =>
  runFilesDownload(
    { file: positionals[0]!, repo: flag.string(raw, 'repo'), output: flag.string(raw, 'output'), clobber: raw.clobber === true },
    ctx,
  );

/**
 * `GET /files/{file_id}/download`, streamed to `--output` (written beside it as `.part` and renamed once
 * whole and matching the file's SHA-256, so a failed download leaves nothing) or to stdout with `-`. An
 * existing local file is refused (exit 1) unless --clobber. Chatter on stderr only, so `-o -` pipes.
 */
export async function runFilesDownload(options: FilesDownloadOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const id = await fileId(client, options.file, options.repo);
  const meta = (await client.request({ method: 'GET', path: `/files/${enc(id)}` })).body as FileView;
  const target = options.output ?? meta.name;
  await refuseExisting(target, options.clobber);
  const response = await client.open({ method: 'GET', path: `/files/${enc(id)}/download`, headers: { accept: '*/*' } });
  await saveDownload(ctx.io, response, target, meta.sha256, meta.path);
  if (target !== '-') ctx.io.err(`Downloaded ${meta.path} to ${target} (${meta.size_bytes} bytes).\n`);
}
