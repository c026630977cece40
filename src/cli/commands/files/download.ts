import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, rename, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { CliError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
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

/** Hashes what passes; `digest()` once it has all passed. */
function hashing(): { stream: Transform; digest(): string } {
  const hash = createHash('sha256');
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

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
  if (
    target !== '-' &&
    !options.clobber &&
    (await access(target).then(
      () => true,
      () => false,
    ))
  )
    throw new CliError('error', `${target} exists`, { hint: 'pass --clobber to overwrite it, or -o PATH' });
  const response = await client.open({ method: 'GET', path: `/files/${enc(id)}/download`, headers: { accept: '*/*' } });
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  const hash = hashing();
  const part = `${target}.part`;
  try {
    if (target === '-') await pipeline(body, hash.stream, ctx.io.stdout ?? process.stdout, { end: false });
    else await pipeline(body, hash.stream, createWriteStream(part));
  } catch (error) {
    if (target !== '-') await rm(part, { force: true });
    throw new CliError('error', `the download of ${meta.path} broke off: ${(error as Error).message}`);
  }
  // The ETag is the SHA-256 the daemon recorded: bytes that do not hash to it are not the file.
  const expected = (response.headers.get('etag') ?? `"${meta.sha256}"`).replace(/"/g, '');
  const actual = hash.digest();
  if (actual !== expected) {
    if (target !== '-') await rm(part, { force: true });
    throw new CliError('error', `the bytes received hash to ${actual}, not ${expected}`);
  }
  if (target !== '-') {
    await rename(part, target);
    ctx.io.err(`Downloaded ${meta.path} to ${target} (${meta.size_bytes} bytes).\n`);
  }
}
