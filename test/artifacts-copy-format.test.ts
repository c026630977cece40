import { describe, expect, it } from 'vitest';
import { binaryCopyValues } from '../src/daemon/domains/artifacts/chunk-readers.js';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

function int(bytes: number, value: number): Buffer {
  const buffer = Buffer.alloc(bytes);
  if (bytes === 2) buffer.writeInt16BE(value);
  else buffer.writeInt32BE(value);
  return buffer;
}

/** A one-column binary COPY output of `values`, with a header extension of `extension` bytes. */
function copyOutput(values: Buffer[], extension = 0): Buffer {
  const rows = values.flatMap((value) => [int(2, 1), int(4, value.length), value]);
  return Buffer.concat([SIGNATURE, int(4, 0), int(4, extension), Buffer.alloc(extension), ...rows, int(2, -1)]);
}

describe('the binary COPY framing the database artifact store reads', () => {
  it('gives each row’s value as it was, empty ones and a header extension included', () => {
    const values = [Buffer.from([0, 1, 2, 255]), Buffer.alloc(0), Buffer.from('x'.repeat(70_000))];
    expect(binaryCopyValues(copyOutput(values)).map((value) => value.toString('hex'))).toEqual(values.map((v) => v.toString('hex')));
    expect(binaryCopyValues(copyOutput(values, 8))).toHaveLength(3);
    expect(binaryCopyValues(copyOutput([]))).toEqual([]);
  });

  it('refuses what is not binary COPY output, a row of two fields, and a cut-short stream', () => {
    expect(() => binaryCopyValues(Buffer.from('not copy output at all'))).toThrow();
    const two = Buffer.concat([
      SIGNATURE,
      int(4, 0),
      int(4, 0),
      int(2, 2),
      int(4, 1),
      Buffer.from('a'),
      int(4, 1),
      Buffer.from('b'),
      int(2, -1),
    ]);
    expect(() => binaryCopyValues(two)).toThrow();
    const whole = copyOutput([Buffer.from('abcdef')]);
    expect(() => binaryCopyValues(whole.subarray(0, whole.length - 5))).toThrow();
  });
});
