import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { ArtifactRef, ArtifactStore } from './artifact-store.js';
import { type ChunkReader, chunkReaderFor } from './chunk-readers.js';

/** Bytes per chunk row: large enough that a row's overhead is nothing, small enough that memory stays flat. */
export const CHUNK_BYTES = 1024 * 1024;
/** Chunk inserts running at once while an upload streams in: each on its own pooled connection (one on PGlite). */
const INSERTS_IN_FLIGHT = 3;
/** Chunks a download reads per statement, one such read ahead of the one being sent: fewer round trips, a few MiB held. */
const CHUNKS_PER_READ = 4;

const CHUNKS = 'run_artifact_chunks';

/**
 * Artifacts as rows of 1 MiB bytea chunks (`run_artifact_chunks`), so every daemon of a deployment reads
 * what any of them stored. Each chunk is its own short statement, never one long transaction: an upload
 * holds no connection (PGlite has one) and no lock while its bytes arrive. Up to three inserts run while
 * the next chunk fills, and a download reads four chunks per statement (binary COPY on PostgreSQL:
 * `chunk-readers.ts`), one read ahead, so memory stays at a few MiB whatever the artifact's size.
 */
export class DatabaseArtifactStore implements ArtifactStore {
  readonly kind = 'database' as const;

  readonly #readChunks: ChunkReader;

  constructor(private readonly knex: Knex) {
    this.#readChunks = chunkReaderFor(knex);
  }

  async write(ref: ArtifactRef, source: AsyncIterable<Buffer>): Promise<void> {
    let seq = 0;
    const inFlight: Promise<unknown>[] = [];
    const insert = async (data: Buffer): Promise<void> => {
      if (inFlight.length >= INSERTS_IN_FLIGHT) await inFlight.shift();
      // Started now, while the next chunk fills.
      const running = this.#insertChunk(ref, seq++, data);
      // Its failure is waited on (and thrown) when its turn comes or at the end, not left unhandled meanwhile.
      running.catch(() => undefined);
      inFlight.push(running);
    };
    try {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      for await (const chunk of source) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        while (pendingBytes >= CHUNK_BYTES) {
          const joined = Buffer.concat(pending, pendingBytes);
          await insert(joined.subarray(0, CHUNK_BYTES));
          const rest = joined.subarray(CHUNK_BYTES);
          pending = rest.length > 0 ? [rest] : [];
          pendingBytes = rest.length;
        }
      }
      if (pendingBytes > 0) await insert(Buffer.concat(pending, pendingBytes));
      await Promise.all(inFlight);
    } catch (error) {
      await Promise.allSettled(inFlight);
      await this.remove(ref);
      throw error;
    }
  }

  /** One chunk, its own short statement. */
  async #insertChunk(ref: ArtifactRef, seq: number, data: Buffer): Promise<void> {
    await this.knex(CHUNKS).insert({ artifact_id: ref.artifactId, seq, run_id: ref.runId, data });
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
