import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, rename, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { CliError } from '../errors.js';
import type { IO } from './io.js';

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

/** Refuses (exit 1) a local file that is there already, unless the caller said to overwrite it (`--clobber`). */
export async function refuseExisting(target: string, clobber: boolean): Promise<void> {
  if (target === '-' || clobber) return;
  const exists = await access(target).then(
    () => true,
    () => false,
  );
  if (exists) throw new CliError('error', `${target} exists`, { hint: 'pass --clobber to overwrite it, or -o PATH' });
}

/**
 * Streams a download's body to `target` (written beside it as `.part` and renamed once whole and
 * matching `sha256`, so a failed download leaves nothing) or to stdout with `-`. The answer's ETag, when
 * it has one, is the SHA-256 the daemon recorded: bytes that do not hash to it are not the file. A body
 * made while it is sent (a zip) has neither, and `sha256` undefined: only its completeness is checked.
 */
export async function saveDownload(io: IO, response: Response, target: string, sha256: string | undefined, what: string): Promise<void> {
  const body = Readable.fromWeb(response.body as ReadableStream<Uint8Array>);
  const hash = hashing();
  const part = `${target}.part`;
  try {
    if (target === '-') await pipeline(body, hash.stream, io.stdout ?? process.stdout, { end: false });
    else await pipeline(body, hash.stream, createWriteStream(part));
  } catch (error) {
    if (target !== '-') await rm(part, { force: true });
    throw new CliError('error', `the download of ${what} broke off: ${(error as Error).message}`);
  }
  const tag = response.headers.get('etag') ?? (sha256 === undefined ? undefined : `"${sha256}"`);
  const expected = tag?.replace(/"/g, '');
  const actual = hash.digest();
  if (expected !== undefined && actual !== expected) {
    if (target !== '-') await rm(part, { force: true });
    throw new CliError('error', `the bytes received hash to ${actual}, not ${expected}`);
  }
  if (target !== '-') await rename(part, target);
}
