import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';

/**
 * How much of an upload a file sink may hold before it asks the request to pause. Node's default
 * (16 KiB) is less than one chunk off the socket, so every chunk paused the request until the disk took
 * it, and reading the next never overlapped writing this one. With a MiB, the socket is read while the
 * disk writes: in paired rounds against the same daemon with the default, 64 MB uploads went from 0.54 to
 * 0.65-0.88 of a bare Node copy (`npm run bench -- files`).
 */
export const FILE_WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * Bytes written between two background fdatasyncs. One fdatasync at the end alone waited for the whole
 * file's writeback after the last byte arrived (64 MB: about 80 ms more per upload while PostgreSQL
 * wrote to the same disk); started every few MiB while the upload still arrives, the disk writes as the
 * network reads, and the last one has only the tail left.
 */
export const FLUSH_EVERY_BYTES = 8 * 1024 * 1024;

/**
 * A stream into an open file whose end is durable: `final` resolves only once every byte is written and
 * fdatasynced. Writes go out as they gather (writev); every FLUSH_EVERY_BYTES an fdatasync starts in the
 * background, one at a time, and its failure fails the stream. The caller closes the handle
 * (`FileHandle.close` waits for a flush still under way).
 */
export class DurableFileSink extends Writable {
  #unflushed = 0;
  #flush: Promise<void> | undefined;
  #flushError: unknown;

  constructor(private readonly handle: FileHandle) {
    super({ highWaterMark: FILE_WRITE_BUFFER_BYTES });
  }

  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void): void {
    const buffers = chunks.map(({ chunk }) => chunk);
    const size = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
    this.handle.writev(buffers).then(({ bytesWritten }) => {
      if (bytesWritten !== size) return done(Object.assign(new Error(`wrote ${bytesWritten} of ${size} bytes`), { code: 'ENOSPC' }));
      this.#unflushed += size;
      if (this.#unflushed >= FLUSH_EVERY_BYTES && this.#flush === undefined) this.#startFlush();
      done(this.#flushError as Error | undefined);
    }, done);
  }

  override _final(done: (error?: Error | null) => void): void {
    (async () => {
      await this.#flush;
      if (this.#flushError) throw this.#flushError;
      await this.handle.datasync();
    })().then(() => done(), done);
  }

  #startFlush(): void {
    this.#unflushed = 0;
    this.#flush = this.handle.datasync().then(
      () => {
        this.#flush = undefined;
      },
      (error: unknown) => {
        this.#flushError = error;
        this.#flush = undefined;
      },
    );
  }
}
