import type { Knex } from 'knex';
import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { isUuid } from '../../../shared/ids.js';

/** Chunks `from` .. `from + count - 1` of one artifact's stored bytes, in order (fewer at its end). */
export type ChunkReader = (artifactId: string, from: number, count: number) => Promise<Buffer[]>;

const CHUNKS = 'run_artifact_chunks';

/**
 * The reader for the database at hand. On PostgreSQL the chunks come as their raw bytes through
 * `COPY … TO STDOUT (FORMAT binary)`: node-postgres decodes every result value as UTF-8 text, so a
 * bytea in a query result is sent hex (or base64) encoded, decoded into a string and decoded again, and
 * that work, not the database's, bounded downloads (measured: about three times the base64 query's
 * rate). PGlite has no COPY to a client stream and reads them as base64 (its store is files by default).
 */
export function chunkReaderFor(knex: Knex): ChunkReader {
  return knex.client.config.client === 'pg' ? copyChunkReader(knex) : base64ChunkReader(knex);
}

/** Base64 rather than bytea's hex text: a third fewer bytes to send and to decode. */
function base64ChunkReader(knex: Knex): ChunkReader {
  return async (artifactId, from, count) => {
    const rows = await knex(CHUNKS)
      .where({ artifact_id: artifactId })
      .whereBetween('seq', [from, from + count - 1])
      .orderBy('seq')
      .select<{ data: string }[]>(knex.raw(`encode(data, 'base64') AS data`));
    return rows.map((row) => Buffer.from(row.data, 'base64'));
  };
}

/** The pooled pg client as knex hands it out. */
export type PgConnection = PoolClient & { readonly __knexUid?: string };

/**
 * One `COPY (SELECT …) TO STDOUT (FORMAT binary)` per call, on a pooled connection held only until its
 * few MiB are in (a slow downloader holds no connection). COPY takes no bind parameters: the id is
 * checked to be a UUID and the bounds are integers before knex quotes them into the text.
 */
function copyChunkReader(knex: Knex): ChunkReader {
  return async (artifactId, from, count) => {
    if (!isUuid(artifactId) || !Number.isInteger(from) || !Number.isInteger(count)) throw new TypeError('bad chunk range');
    const select = knex(CHUNKS)
      .where({ artifact_id: artifactId })
      .whereBetween('seq', [from, from + count - 1])
      .orderBy('seq')
      .select('data')
      .toQuery();
    const sql = `COPY (${select}) TO STDOUT (FORMAT binary)`;
    const connection = (await knex.client.acquireConnection()) as PgConnection;
    try {
      knex.emit('query', { method: 'raw', sql, bindings: [], __knexUid: connection.__knexUid });
      const parts: Buffer[] = [];
      for await (const part of connection.query(copyTo(sql))) parts.push(part as Buffer);
      return binaryCopyValues(Buffer.concat(parts));
    } finally {
      await knex.client.releaseConnection(connection);
    }
  };
}

/** `PGCOPY\n\377\r\n\0`: the binary COPY format's signature. */
const SIGNATURE = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]);

/**
 * The values of a one-column, never-null binary COPY output (PostgreSQL's "Binary Format" of COPY):
 * the signature, 32-bit flags and a header extension of a given length; then per row a 16-bit field
 * count and each field as a 32-bit length and its bytes; then a field count of -1. The values are views
 * of `bytes`, not copies.
 */
export function binaryCopyValues(bytes: Buffer): Buffer[] {
  if (!bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('not a binary COPY stream');
  let at = SIGNATURE.length + 4;
  at += 4 + bytes.readUInt32BE(at);
  const values: Buffer[] = [];
  for (;;) {
    const fields = bytes.readInt16BE(at);
    at += 2;
    if (fields === -1) return values;
    if (fields !== 1) throw new Error(`a binary COPY row of ${fields} fields, expected 1`);
    const length = bytes.readInt32BE(at);
    at += 4;
    if (length < 0 || at + length > bytes.length) throw new Error('a truncated binary COPY stream');
    values.push(bytes.subarray(at, at + length));
    at += length;
  }
}
