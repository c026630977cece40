import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

/** The stored bytes did not hash to what their row recorded (changed or damaged in the store). */
export class ChecksumMismatch extends Error {
  override name = 'ChecksumMismatch';
}

/**
 * Passes bytes through while hashing them, and fails at the end when they do not have `sha256` (and
 * `size`): an answer already under way is then cut short, so a client never takes damaged bytes for whole ones.
 */
export function verifying(sha256: string, size: number): Transform {
  const hash = createHash('sha256');
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      const actual = hash.digest('hex');
      done(actual === sha256 && seen === size ? null : new ChecksumMismatch(`stored bytes hash to ${actual}, ${seen} bytes`));
    },
  });
}
