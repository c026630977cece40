import type { Readable } from 'node:stream';

/** Where an artifact's bytes are kept; the row records which, so a changed setting leaves old artifacts readable. */
export type StorageKind = 'file' | 'database' | 'repository';

/** An artifact's bytes are found by its run and its id (and, in the repository store, by its repository). */
export interface ArtifactRef {
  readonly runId: string;
  readonly artifactId: string;
  readonly repositoryId?: string | null;
}

/** Where a new artifact's bytes go: a store, and the file repository when the store is `repository`. */
export interface Placement {
  readonly storage: StorageKind;
  readonly repositoryId: string | null;
}

/**
 * The bytes of run artifacts, streamed both ways and never held whole in memory. A store knows nothing of
 * rows, sizes or limits: the service measures the stream it hands in and commits the row once `write`
 * has stored every byte.
 */
export interface ArtifactStore {
  readonly kind: StorageKind;
  /** Stores every byte of `source`. When `source` (or the store) fails, nothing of it is left behind, and the error is rethrown. */
  write(ref: ArtifactRef, source: AsyncIterable<Buffer>): Promise<void>;
  /** The stored bytes, opened now (so a missing artifact is known before an answer starts), read as they are consumed. */
  open(ref: ArtifactRef): Promise<Readable>;
  /** Forgets one artifact's bytes (an upload whose row was not committed). */
  remove(ref: ArtifactRef): Promise<void>;
  /**
   * Forgets every artifact of a run (its purge), and the folder that kept them. `stored` are those of its
   * artifacts this store keeps by reference (the repository store's, read from their rows before they went).
   */
  removeRun(runId: string, stored: readonly ArtifactRef[]): Promise<void>;
  /** The runs it holds bytes of, where that outlives their rows (files; database chunks cascade with their run). */
  storedRuns(): Promise<string[]>;
  /** Removes what uploads that never finished (the daemon died) left, untouched since `before`; answers how many. */
  removeAbandoned(before: Date): Promise<number>;
}

/** The store bytes may be read from (by the row's `storage`) and where an organization's new uploads go. */
export interface ArtifactStores {
  /** Where the next upload of a run of `orgId` is kept (SERVICE_ARTIFACT_STORE, and the organization's default repository). */
  placement(orgId: string): Promise<Placement>;
  of(kind: StorageKind): ArtifactStore;
  readonly all: readonly ArtifactStore[];
}

export function artifactStores(stores: readonly ArtifactStore[], placement: (orgId: string) => Promise<Placement>): ArtifactStores {
  const byKind = new Map(stores.map((store) => [store.kind, store]));
  const of = (kind: StorageKind): ArtifactStore => {
    const store = byKind.get(kind);
    if (!store) throw new Error(`no artifact store of kind ${kind}`);
    return store;
  };
  return { placement, of, all: stores };
}
