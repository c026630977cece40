import { Readable } from 'node:stream';
import { BlobMissing, type BlobStore } from '../../storage/blob-store.js';
import type { RepositoryRef } from '../files/repository-blobs.js';
import type { ArtifactRef, ArtifactStore } from './artifact-store.js';
import { ArtifactBytesMissing } from './file-artifact-store.js';

/** What the artifacts need of the file repository layer (the files module's `RepositoryBlobs`). */
export interface ArtifactRepositories {
  /** The organization's default repository, made (local, `default`) when it has none. */
  ensureDefault(orgId: string): Promise<RepositoryRef>;
  /** A repository's byte store; undefined when the repository no longer exists. */
  store(repositoryId: string): Promise<BlobStore | undefined>;
  /** Part files of local repositories' uploads untouched since `before` (the daemon died during them); answers how many. */
  removeAbandonedParts(before: Date): Promise<number>;
}

/** The folder of a run's artifacts in a repository, beside the repository's own `files/`. */
function runFolder(runId: string): string {
  return `artifacts/${runId}`;
}

/** The key of an artifact's bytes in its repository. */
export function artifactKey(ref: ArtifactRef): string {
  return `${runFolder(ref.runId)}/${ref.artifactId}`;
}

/**
 * Artifacts kept in a file repository of their run's organization (`artifacts/<run_id>/<artifact_id>`
 * through its BlobStore): an S3 repository serves every daemon of a deployment, as object storage serves
 * GitLab's artifacts. The row names the repository, so a later change of the organization's default
 * leaves older artifacts where they are. Writes are the store's: a local part file renamed into place, an
 * S3 multipart upload completed or aborted; either way nothing of a failed upload is left.
 */
export class RepositoryArtifactStore implements ArtifactStore {
  readonly kind = 'repository' as const;

  constructor(private readonly repositories: ArtifactRepositories) {}

  async write(ref: ArtifactRef, source: AsyncIterable<Buffer>): Promise<void> {
    const store = await this.#store(ref);
    await store.write(artifactKey(ref), source instanceof Readable ? source : Readable.from(source));
  }

  async open(ref: ArtifactRef): Promise<Readable> {
    const store = await this.#store(ref);
    try {
      return await store.open(artifactKey(ref));
    } catch (error) {
      if (error instanceof BlobMissing) throw new ArtifactBytesMissing(`artifact ${ref.artifactId} has no bytes in its repository`);
      throw error;
    }
  }

  async remove(ref: ArtifactRef): Promise<void> {
    const store = await this.repositories.store(this.#repositoryId(ref));
    await store?.remove(artifactKey(ref));
  }

  /**
   * Each artifact by its row (read in the purge's transaction: the rows name their repositories), then
   * the run's folder in each of those repositories, which a local one would otherwise keep, empty, for ever.
   */
  async removeRun(runId: string, stored: readonly ArtifactRef[]): Promise<void> {
    for (const ref of stored) await this.remove(ref);
    for (const repositoryId of new Set(stored.map((ref) => this.#repositoryId(ref)))) {
      await (await this.repositories.store(repositoryId))?.removeEmptyFolder(runFolder(runId));
    }
  }

  /** A repository holding artifacts cannot be deleted, and an organization's delete takes its repositories too. */
  async storedRuns(): Promise<string[]> {
    return [];
  }

  /** S3 aborts a failed multipart upload itself; what a crash leaves there is for the bucket's lifecycle rule (docs/artifacts.md). */
  async removeAbandoned(before: Date): Promise<number> {
    return this.repositories.removeAbandonedParts(before);
  }

  async #store(ref: ArtifactRef): Promise<BlobStore> {
    const store = await this.repositories.store(this.#repositoryId(ref));
    if (!store) throw new ArtifactBytesMissing(`artifact ${ref.artifactId}'s repository no longer exists`);
    return store;
  }

  #repositoryId(ref: ArtifactRef): string {
    if (!ref.repositoryId) throw new TypeError(`artifact ${ref.artifactId} names no repository`);
    return ref.repositoryId;
  }
}
