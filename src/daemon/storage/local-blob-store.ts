import { randomUUID } from 'node:crypto';
import { mkdir, open, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { writeFileDurably } from './durable-file.js';
import { removeStaleParts } from './stale-parts.js';
import { assertKey, BlobMissing, type BlobStore, probeChecks, type StoreCheck, type StoreCheckReason } from './blob-store.js';

/**
 * Bytes as files under one directory: `<root>/<key>`. A write goes to `<root>/.tmp/<uuid>.part` and is
 * renamed over its key once complete and durable (`writeFileDurably`), so a reader never sees half a
 * file and a replaced file's readers keep the bytes they opened. The embedded default (one daemon); several daemons need a shared directory.
 */
export class LocalBlobStore implements BlobStore {
  readonly #tmp: string;

  constructor(private readonly root: string) {
    this.#tmp = join(root, '.tmp');
  }

  async write(key: string, source: Readable): Promise<void> {
    await mkdir(this.#tmp, { recursive: true });
    await writeFileDurably(source, join(this.#tmp, `${randomUUID()}.part`), this.#path(key));
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

  async removeEmptyFolder(prefix: string): Promise<void> {
    try {
      await rmdir(this.#path(prefix));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    }
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
