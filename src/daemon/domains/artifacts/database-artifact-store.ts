import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { ArtifactRef, ArtifactStore } from './artifact-store.js';
import { type ChunkReader, chunkReaderFor } from './chunk-readers.js';
import { type ChunkWriter, chunkWriterFor, type PendingChunk } from './chunk-writers.js';

/** Bytes per chunk row: large enough that a row's overhead is nothing, small enough that memory stays flat. */
export const CHUNK_BYTES = 1024 * 1024;
/** Most chunks an upload writes per statement (when the database is slower than the client): a few MiB from memory, so no connection waits on the client's bytes. */
const CHUNKS_PER_WRITE = 4;
/** Such statements running at once while the next chunks fill: each on its own pooled connection (one on PGlite). */
const WRITES_IN_FLIGHT = 2;
/** Chunks a download reads per statement, one such read ahead of the one being sent: fewer round trips, a few MiB held. */
const CHUNKS_PER_READ = 4;

const CHUNKS = 'run_artifact_chunks';

/**
 * Artifacts as rows of 1 MiB bytea chunks (`run_artifact_chunks`), so every daemon of a deployment reads
 * what any of them stored. Chunks are written by short statements of a few already received, never one
 * long transaction: an upload holds no connection (PGlite has one) and no lock while its bytes arrive.
 * Two such writes run while the next chunks fill (binary COPY on PostgreSQL: `chunk-writers.ts`), and a
 * download reads four chunks per statement (`chunk-readers.ts`), one read ahead, so memory stays at a few
 * MiB whatever the artifact's size.
 */
export class DatabaseArtifactStore implements ArtifactStore {
  readonly kind = 'database' as const;

  readonly #readChunks: ChunkReader;
  readonly #writeChunks: ChunkWriter;

  constructor(private readonly knex: Knex) {
    this.#readChunks = chunkReaderFor(knex);
    this.#writeChunks = chunkWriterFor(knex);
  }

  async write(ref: ArtifactRef, source: AsyncIterable<Buffer>): Promise<void> {
    // Statements under way; a failed one stays, so that the next wait (or the last) throws its error.
    const running = new Set<Promise<void>>();
    let batch: PendingChunk[] = [];
    let pieces: Buffer[] = [];
    let size = 0;
    let seq = 0;
    const send = (): void => {
      const write = this.#writeChunks(ref, batch);
      batch = [];
      running.add(write);
      write.then(
        () => running.delete(write),
        () => undefined,
      );
    };
    // A full chunk goes at once while a statement slot is free; while both are busy chunks gather, up to a
    // batch, and a full batch waits for a slot (the client's bytes wait with it).
    const chunkFull = async (): Promise<void> => {
      batch.push({ seq: seq++, pieces, size });
      pieces = [];
      size = 0;
      if (batch.length < CHUNKS_PER_WRITE && running.size >= WRITES_IN_FLIGHT) return;
      while (running.size >= WRITES_IN_FLIGHT) await Promise.race(running);
      send();
    };
    try {
      for await (const chunk of source) {
        // A chunk row is the pieces that fill it, cut where a MiB ends: never joined into one buffer here.
        for (let rest = chunk; rest.length > 0;) {
          const take = Math.min(rest.length, CHUNK_BYTES - size);
          pieces.push(take === rest.length ? rest : rest.subarray(0, take));
          size += take;
          rest = rest.subarray(take);
          if (size === CHUNK_BYTES) await chunkFull();
        }
      }
      if (size > 0) batch.push({ seq: seq++, pieces, size });
      if (batch.length > 0) send();
      await Promise.all(running);
    } catch (error) {
      await Promise.allSettled(running);
      await this.remove(ref);
      throw error;
    }
  }

  async open(ref: ArtifactRef): Promise<Readable> {
    // A read is a promise made once: the read-ahead runs once, while the chunks before it are sent.
    const read = (from: number): Promise<Buffer[]> => this.#readChunks(ref.artifactId, from, CHUNKS_PER_READ);
    async function* chunks(): AsyncGenerator<Buffer> {
      let next = read(0);
      for (let from = CHUNKS_PER_READ; ; from += CHUNKS_PER_READ) {
        const batch = await next;
        const more = batch.length === CHUNKS_PER_READ;
        if (more) {
          next = read(from);
          // A rejected read-ahead the consumer never waits for (it stopped early) must not go unhandled.
          next.catch(() => undefined);
        }
        yield* batch;
        if (!more) return;
      }
    }
    return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
  }

  async remove(ref: ArtifactRef): Promise<void> {
    await this.knex(CHUNKS).where({ artifact_id: ref.artifactId }).delete();
  }

  /** The purge's own cascade (chunks name their run) has removed them already; nothing is left to do. */
  async removeRun(): Promise<void> {}

  /** Chunks go with their run's row (cascade): none outlive it. */
  async storedRuns(): Promise<string[]> {
    return [];
  }

  /**
   * The chunks of uploads that never finished (their daemon died): no artifact row names them and their
   * newest chunk was written before `before`. An upload still arriving writes a chunk per MiB, and the
   * sweep's grace (a day) is far longer than a request may take, so it is never one of them. One upload's
   * chunks go in one statement (at most SERVICE_ARTIFACT_MAX_BYTES / 1 MiB rows); answers how many uploads.
   */
  async removeAbandoned(before: Date): Promise<number> {
    const abandoned = await this.knex(CHUNKS)
      .whereNotExists((artifacts) =>
        artifacts.select(1).from('run_artifacts').whereRaw('run_artifacts.id = run_artifact_chunks.artifact_id'),
      )
      .groupBy('artifact_id')
      .havingRaw('max(written_at) < ?', [before])
      .pluck<string[]>('artifact_id');
    for (const artifactId of abandoned) {
      await this.knex(CHUNKS)
        .where({ artifact_id: artifactId })
        .whereNotExists((artifacts) => artifacts.select(1).from('run_artifacts').where('run_artifacts.id', artifactId))
        .delete();
    }
    return abandoned.length;
  }
}
