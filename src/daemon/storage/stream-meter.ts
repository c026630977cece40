import { createHash, type Hash } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';

/** An upload's bytes as they arrive: the request itself, or a buffer sent whole. */
export type ByteSource = AsyncIterable<Buffer | Uint8Array> | Iterable<Buffer | Uint8Array>;

/** What the meter saw pass: the byte count and the SHA-256 (hex). */
export interface Measured {
  readonly size: number;
  readonly sha256: string;
  /** The first bytes (up to HEAD_BYTES), which is what content-type sniffing reads. */
  readonly head: Buffer;
}

/** Enough of a file's start for every signature content sniffing knows (file-type reads up to 4100 bytes). */
export const HEAD_BYTES = 4100;

/**
 * Counts and hashes bytes as they stream through, and stops the stream with `refuse(size)`'s error as
 * soon as it passes `limit`: the size and hash of an upload are known the moment its last byte is stored,
 * without reading it twice.
 */
export class StreamMeter {
  #size = 0;
  readonly #hash: Hash = createHash('sha256');
  readonly #head: Buffer[] = [];
  #headSize = 0;

  constructor(
    private readonly limit: number,
    private readonly refuse: (size: number) => Error,
  ) {}

  /**
   * The bytes of `source` as a stream that counts and hashes them on their way. A stream piped through a
   * Transform (rather than read by an async generator) keeps Node's piping fast path to the store's file.
   * An error either side (the limit passed, the client gone) ends both.
   */
  pass(source: ByteSource): Readable {
    const meter = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.#size += chunk.length;
        if (this.#size > this.limit) return done(this.refuse(this.#size));
        this.#hash.update(chunk);
        if (this.#headSize < HEAD_BYTES) {
          const part = chunk.subarray(0, HEAD_BYTES - this.#headSize);
          this.#head.push(Buffer.from(part));
          this.#headSize += part.length;
        }
        done(null, chunk);
      },
    });
    // The error reaches the store through `meter`, which pipeline destroys with it.
    pipeline(source instanceof Readable ? source : Readable.from(source), meter, () => undefined);
    return meter;
  }

  /** Once the stream has ended. */
  measured(): Measured {
    return { size: this.#size, sha256: this.#hash.digest('hex'), head: Buffer.concat(this.#head) };
  }
}
