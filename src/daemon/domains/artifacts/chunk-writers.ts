import { finished } from 'node:stream/promises';
import type { Knex } from 'knex';
import { from as copyFrom } from 'pg-copy-streams';
import { isUuid } from '../../../shared/ids.js';
import type { ArtifactRef } from './artifact-store.js';
import type { PgConnection } from './chunk-readers.js';

/** One chunk row to be: its sequence number and its bytes, as the pieces they arrived in (never joined on PostgreSQL). */
export interface PendingChunk {
  readonly seq: number;
  readonly pieces: readonly Buffer[];
  readonly size: number;
}

/** Writes a few chunk rows of one artifact in one statement. */
export type ChunkWriter = (ref: ArtifactRef, chunks: readonly PendingChunk[]) => Promise<void>;

const CHUNKS = 'run_artifact_chunks';

/**
 * The writer for the database at hand. On PostgreSQL, `COPY … FROM STDIN (FORMAT binary)`: the chunks'
 * bytes go out as they came in, each piece a CopyData message, with no bind-parameter encoding and no
 * joined copy of each MiB. PGlite has no COPY from a client stream and inserts them.
 */
export function chunkWriterFor(knex: Knex): ChunkWriter {
  return knex.client.config.client === 'pg' ? copyChunkWriter(knex) : insertChunkWriter(knex);
}

function insertChunkWriter(knex: Knex): ChunkWriter {
  return async (ref, chunks) => {
    const rows = chunks.map((chunk) => ({
      artifact_id: ref.artifactId,
      seq: chunk.seq,
      run_id: ref.runId,
      data: Buffer.concat(chunk.pieces, chunk.size),
    }));
    await knex(CHUNKS).insert(rows);
  };
}

/** `PGCOPY\n\377\r\n\0`, flags 0, no header extension. */
const HEADER = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]);
const TRAILER = Buffer.from([0xff, 0xff]);
const SQL = `COPY ${CHUNKS} (artifact_id, seq, run_id, data) FROM STDIN (FORMAT binary)`;

/**
 * One binary COPY per call, on a pooled connection held only while its few MiB (already in memory) are
 * sent: the client's next bytes arrive meanwhile without holding it. Rows are PostgreSQL's binary COPY
 * tuples: a 16-bit field count (4), then each field's 32-bit length and bytes (uuid 16 bytes, int4,
 * uuid, bytea raw).
 */
function copyChunkWriter(knex: Knex): ChunkWriter {
  return async (ref, chunks) => {
    const artifactId = uuidBytes(ref.artifactId);
    const runId = uuidBytes(ref.runId);
    const connection = (await knex.client.acquireConnection()) as PgConnection;
    try {
      knex.emit('query', { method: 'raw', sql: SQL, bindings: [], __knexUid: connection.__knexUid });
      const copy = connection.query(copyFrom(SQL));
      copy.write(HEADER);
      for (const chunk of chunks) {
        copy.write(tupleHead(artifactId, chunk.seq, runId, chunk.size));
        for (const piece of chunk.pieces) copy.write(piece);
      }
      copy.end(TRAILER);
      await finished(copy);
    } finally {
      await knex.client.releaseConnection(connection);
    }
  };
}

/** A tuple's fields up to the bytea's length; its bytes follow. */
function tupleHead(artifactId: Buffer, seq: number, runId: Buffer, size: number): Buffer {
  const head = Buffer.allocUnsafe(2 + 4 + 16 + 4 + 4 + 4 + 16 + 4);
  let at = head.writeInt16BE(4, 0);
  at = head.writeInt32BE(16, at);
  at += artifactId.copy(head, at);
  at = head.writeInt32BE(4, at);
  at = head.writeInt32BE(seq, at);
  at = head.writeInt32BE(16, at);
  at += runId.copy(head, at);
  head.writeInt32BE(size, at);
  return head;
}

/** A UUID's 16 bytes, as binary COPY sends a uuid. */
function uuidBytes(id: string): Buffer {
  if (!isUuid(id)) throw new TypeError(`not a uuid: ${id}`);
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}
