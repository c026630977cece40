import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { CliError, usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printRecord } from '../../runtime/table.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { defaultRepositoryId, repoFlag, repositoryId } from './resolve.js';
import { fileFields, type FileView } from './types.js';

export interface FilesUploadOptions {
  /** A local path, or `-` for stdin. */
  readonly source: string;
  readonly repo: string | undefined;
  readonly name: string | undefined;
  readonly folder: string | undefined;
  readonly sha256: string | undefined;
  readonly overwrite: boolean;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    repoFlag(
      command
        .description(
          'Stream a file into a repository (never read whole): PATH, or - for stdin. Its content type is sniffed by the daemon, its SHA-256 recorded (and checked with --sha256).',
        )
        .argument('<path>', 'the local file, or - to read stdin'),
      "the repository (default: the organization's default, made if it has none)",
    )
      .option('--name <name>', "its name, which may carry folders (a/b/c.bin); default: the local file's name (required with -)")
      .option('--folder <path>', 'the folder to put it in')
      .option('--sha256 <hex>', 'the SHA-256 the bytes must have: other bytes are refused and nothing is kept')
      .option('--overwrite', 'replace the bytes of a file of the same path (its id stays)'),
  );
}

export const invoke: Invoke = ({ positionals, raw, ctx }) => runFilesUpload(parseFilesUploadOptions(positionals[0]!, raw), ctx);

export function parseFilesUploadOptions(source: string, raw: Record<string, unknown>): FilesUploadOptions {
  const name = flag.string(raw, 'name') ?? (source === '-' ? undefined : basename(source));
  if (name === undefined) throw usageError('reading stdin, the file needs a name', 'pass --name NAME');
  const sha256 = flag.string(raw, 'sha256');
  if (sha256 !== undefined && !/^[0-9a-fA-F]{64}$/.test(sha256)) throw usageError('--sha256 takes 64 hex digits');
  return {
    source,
    repo: flag.string(raw, 'repo'),
    name,
    folder: typeof raw.folder === 'string' ? raw.folder : undefined,
    sha256: sha256?.toLowerCase(),
    overwrite: raw.overwrite === true,
    json: flag.json(raw),
  };
}

/** The bytes to send and their length when known (a file's; stdin's is not: sent chunked). */
async function sourceOf(path: string, ctx: Context): Promise<{ bytes: AsyncIterable<Uint8Array>; length?: number }> {
  if (path === '-') return { bytes: ctx.io.stdin as AsyncIterable<Uint8Array> };
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new CliError('error', `cannot read ${path}: ${error.code ?? error.message}`);
  });
  if (!info.isFile()) throw usageError(`${path} is not a file`);
  return { bytes: createReadStream(path, { highWaterMark: 1024 * 1024 }), length: info.size };
}

/**
 * `POST /file-repositories/{id}/files/upload?name=&folder=&sha256=&overwrite=`, the body streamed from the
 * file or stdin. The file on stdout with `--json`, else its fields; a taken path is 409 `file_exists`
 * (exit 1) unless --overwrite, a file over the daemon's limit 413 `file_too_large` (exit 1).
 */
export async function runFilesUpload(options: FilesUploadOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const repo = options.repo === undefined ? await defaultRepositoryId(client) : await repositoryId(client, options.repo);
  const { bytes, length } = await sourceOf(options.source, ctx);
  const query: Record<string, string> = { name: options.name! };
  if (options.folder !== undefined) query.folder = options.folder;
  if (options.sha256 !== undefined) query.sha256 = options.sha256;
  if (options.overwrite) query.overwrite = 'true';
  const answer = await client.request({
    method: 'POST',
    path: `/file-repositories/${enc(repo)}/files/upload`,
    query,
    upload: { bytes, contentType: 'application/octet-stream', ...(length === undefined ? {} : { length }) },
  });
  const file = answer.body as FileView;
  if (options.json) return printJson(ctx.io, file);
  ctx.io.err(`${answer.status === 201 ? 'Uploaded' : 'Replaced'} ${file.path} (${file.id}).\n`);
  printRecord(ctx.io, fileFields(file));
}
