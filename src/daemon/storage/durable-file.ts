import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DurableFileSink } from './durable-file-sink.js';

/**
 * Streams `source` into `part` (a new file) and renames it to `target`, both made durable before this
 * resolves: the file's bytes (fdatasync, `DurableFileSink`), then the directory entry the rename wrote,
 * and the entry of a directory made for it. The caller records the bytes as stored (a row committed, a 201 answered) only
 * after this, so a crash or power loss after that answer cannot leave a row over a missing or half-written
 * file, as the page cache alone would. A failure before the rename removes the part file.
 */
export async function writeFileDurably(source: Readable | AsyncIterable<Buffer>, part: string, target: string): Promise<void> {
  try {
    const file = await open(part, 'wx');
    try {
      await pipeline(source, new DurableFileSink(file));
    } finally {
      await file.close();
    }
    const created = await mkdir(dirname(target), { recursive: true });
    await rename(part, target);
    await syncDirectory(dirname(target));
    if (created !== undefined) await syncDirectory(dirname(created));
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
}

/** fsync of a file's data by path: fsync applies to the file, whichever descriptor asks. */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * fsync of a directory, so the entries made in it (a rename, a link, a new directory) outlive a crash.
 * Some file systems refuse fsync on a directory (EINVAL, EBADF); like PostgreSQL's `fsync_fname`, that
 * is taken as nothing to do.
 */
export async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EBADF') throw error;
  } finally {
    await handle.close();
  }
}
