import { createHash, type Hash } from 'node:crypto';

/** An upload's bytes as they arrive: the request itself, or a buffer sent whole. */
export type ByteSource = AsyncIterable<Buffer | Uint8Array> | Iterable<Buffer | Uint8Array>;

/** What the meter saw pass: the byte count and the SHA-256 (hex). */
export interface Measured {
  readonly size: number;
  readonly sha256: string;
}

/**
 * Counts and hashes bytes as they stream through, and stops the stream with `refuse(size)`'s error as
 * soon as it passes `limit`: the size and hash of an upload are known the moment its last byte is stored,
 * without reading it twice.
 */
export class StreamMeter {
  #size = 0;
  readonly #hash: Hash = createHash('sha256');

  constructor(
    private readonly limit: number,
    private readonly refuse: (size: number) => Error,
  ) {}

  async *pass(source: ByteSource): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      this.#size += chunk.length;
      if (this.#size > this.limit) throw this.refuse(this.#size);
      this.#hash.update(chunk);
      yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
  }

  /** Once the stream has ended. */
  measured(): Measured {
    return { size: this.#size, sha256: this.#hash.digest('hex') };
  }
}
