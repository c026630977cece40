import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { problem } from '../../../shared/api/problem.js';
import { type ByteSource, StreamMeter } from '../../storage/stream-meter.js';

export function archiveInvalid(reason: string, extensions: Record<string, unknown> = {}) {
  return problem('attachment_archive_invalid', `The body is not a zip archive of attachments this daemon reads (${reason}).`, {
    reason,
    ...extensions,
  });
}

/** One file of the archive: its name as the archive holds it, and its bytes, opened when asked. */
export interface ZipFileEntry {
  readonly name: string;
  readonly size: number;
  open(): Promise<Readable>;
}

/**
 * A zip sent as a request body, read entry by entry without holding it: a zip's directory is at its end,
 * so the body is first spooled to a temporary file (counted against `maxBytes`, 413 past it), then its
 * files are opened one at a time. yauzl refuses absolute and `..` names and checks each entry's size
 * against what the directory says (a zip bomb cannot claim less than it inflates to).
 */
export async function withZipEntries<T>(
  source: ByteSource,
  maxBytes: number,
  tooLarge: () => Error,
  work: (entries: AsyncIterable<ZipFileEntry>) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-attachments-'));
  try {
    const file = join(dir, 'upload.zip');
    const meter = new StreamMeter(maxBytes, tooLarge);
    await pipeline(meter.pass(source), createWriteStream(file));
    let zip: yauzl.ZipFile;
    try {
      zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false, strictFileNames: true, validateEntrySizes: true });
    } catch (error) {
      throw archiveInvalid('not_a_zip', { message: (error as Error).message });
    }
    try {
      return await work(filesOf(zip));
    } finally {
      zip.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function* filesOf(zip: yauzl.ZipFile): AsyncIterable<ZipFileEntry> {
  let entries: AsyncIterableIterator<yauzl.Entry>;
  try {
    entries = zip.eachEntry();
  } catch (error) {
    throw archiveInvalid('unreadable', { message: (error as Error).message });
  }
  for (;;) {
    let next: IteratorResult<yauzl.Entry>;
    try {
      next = await entries.next();
    } catch (error) {
      // A name yauzl refuses (absolute, `..`, backslashes) or a damaged directory.
      throw archiveInvalid('unreadable_entry', { message: (error as Error).message });
    }
    if (next.done) return;
    const entry = next.value;
    if (entry.fileName.endsWith('/')) continue;
    yield {
      name: entryName(entry),
      size: entry.uncompressedSize,
      open: async () => {
        try {
          return await zip.openReadStreamPromise(entry);
        } catch (error) {
          throw archiveInvalid('unreadable_entry', { entry: entry.fileName, message: (error as Error).message });
        }
      },
    };
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * An entry's name. yauzl reads a name without the UTF-8 flag (bit 11) or Info-ZIP's Unicode path field
 * as CP437, as the format says; but Info-ZIP's `zip` and many other tools write UTF-8 names without
 * either, so such a name that is valid UTF-8 is read as UTF-8 (`roles/ünï`, not `roles/├╝n├»`).
 * `/`, `.` and `\` are single bytes in both, so what yauzl refused stays refused.
 */
function entryName(entry: yauzl.Entry): string {
  const flagged = (entry.generalPurposeBitFlag & 0x800) !== 0 || entry.extraFields.some((field) => field.id === 0x7075);
  if (flagged || entry.fileNameRaw.every((byte) => byte < 0x80)) return entry.fileName;
  try {
    return UTF8.decode(entry.fileNameRaw);
  } catch {
    return entry.fileName;
  }
}
