import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { removeStaleParts } from './stale-parts.js';
import { assertKey, BlobMissing, type BlobStore, probeChecks, type StoreCheck, type StoreCheckReason } from './blob-store.js';

/**
 * How much of an upload a file write stream may hold before it asks the request to pause. Node's default
 * (16 KiB) is less than one chunk off the socket, so every chunk paused the request until the disk took
 * it, and reading the next never overlapped writing this one. With a MiB, the socket is read while the
 * disk writes: in paired rounds against the same daemon with the default, 64 MB uploads went from 0.54 to
 * 0.65-0.88 of a bare Node copy (`npm run bench -- files`).
 */
export const FILE_WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * Bytes as files under one directory: `<root>/<key>`. A write goes to `<root>/.tmp/<uuid>.part` and is
 * renamed over its key once complete, so a reader never sees half a file and a replaced file's readers
 * keep the bytes they opened. The embedded default (one daemon); several daemons need a shared directory.
 */
export class LocalBlobStore implements BlobStore {
  readonly #tmp: string;

  constructor(private readonly root: string) {
    this.#tmp = join(root, '.tmp');
  }

  async write(key: string, source: Readable): Promise<void> {
    const target = this.#path(key);
    await mkdir(this.#tmp, { recursive: true });
    const part = join(this.#tmp, `${randomUUID()}.part`);
    try {
      await pipeline(source, createWriteStream(part, { flags: 'wx', highWaterMark: FILE_WRITE_BUFFER_BYTES }));
      await mkdir(dirname(target), { recursive: true });
      await rename(part, target);
    } catch (error) {
      await rm(part, { force: true });
      throw error;
    }
  }

  async open(key: string): Promise<Readable> {
    try {
      const handle = await open(this.#path(key), 'r');
      return handle.createReadStream({ highWaterMark: 256 * 1024 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobMissing(`no bytes under ${key}`);
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  /** Part files of writes untouched since `before` (their daemon died during them); answers how many it removed. */
  async removeAbandoned(before: Date): Promise<number> {
    return removeStaleParts(this.#tmp, before);
  }

  async check(): Promise<StoreCheck[]> {
    return probeChecks(this, `.probe/${randomUUID()}`, classifyFsError);
  }

  #path(key: string): string {
    assertKey(key);
    return join(this.root, key);
  }
}

function classifyFsError(error: unknown): StoreCheckReason {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'not_writable';
  if (code === 'ENOSPC') return 'not_writable';
  return 'error';
}
