import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { listing, removeStaleParts } from '../../storage/stale-parts.js';
import type { ArtifactRef, ArtifactStore } from './artifact-store.js';
import { writeFileDurably } from '../../storage/durable-file.js';

/** The bytes a file store cannot find (a file removed by hand, or kept by another daemon's data directory). */
export class ArtifactBytesMissing extends Error {
  override name = 'ArtifactBytesMissing';
}

/**
 * Artifacts as files under the daemon's data directory: `<root>/runs/<run_id>/<artifact_id>`. An upload
 * is written to `<root>/tmp/<artifact_id>.part` and renamed into place once complete and durable, so a
 * reader never sees half a file; a failed one removes its part file. One directory per run makes a purge
 * one removal. The default on embedded PGlite, where there is one daemon; several daemons on PostgreSQL would each
 * see only their own files (use the database store there).
 */
export class FileArtifactStore implements ArtifactStore {
  readonly kind = 'file' as const;
  readonly #tmp: string;
  readonly #runs: string;

  constructor(root: string) {
    this.#tmp = join(root, 'tmp');
    this.#runs = join(root, 'runs');
  }

  async write(ref: ArtifactRef, source: AsyncIterable<Buffer>): Promise<void> {
    await mkdir(this.#tmp, { recursive: true });
    await writeFileDurably(source, join(this.#tmp, `${ref.artifactId}.part`), this.#path(ref));
  }

  async open(ref: ArtifactRef): Promise<Readable> {
    try {
      const handle = await open(this.#path(ref), 'r');
      return handle.createReadStream({ highWaterMark: 256 * 1024 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ArtifactBytesMissing(`artifact ${ref.artifactId} has no file`);
      throw error;
    }
  }

  async remove(ref: ArtifactRef): Promise<void> {
    await rm(this.#path(ref), { force: true });
  }

  async removeRun(runId: string): Promise<void> {
    await rm(this.#runDir(runId), { recursive: true, force: true });
  }

  async storedRuns(): Promise<string[]> {
    return listing(this.#runs);
  }

  async removeAbandoned(before: Date): Promise<number> {
    return removeStaleParts(this.#tmp, before);
  }

  #runDir(runId: string): string {
    return join(this.#runs, runId);
  }

  #path(ref: ArtifactRef): string {
    return join(this.#runDir(ref.runId), ref.artifactId);
  }
}
