import type { BlobStore } from '../../storage/blob-store.js';
import { LocalBlobStore } from '../../storage/local-blob-store.js';
import type { RepositoriesRepo, RepositoryRow } from './repositories-repo.js';
import type { RepositoriesService } from './repositories-service.js';
import type { RepositoryStores } from './repository-stores.js';

/** A repository as another domain needs it: which, and what kind of store. */
export interface RepositoryRef {
  readonly id: string;
  readonly kind: RepositoryRow['kind'];
}

function refOf(row: RepositoryRow): RepositoryRef {
  return { id: row.id, kind: row.kind };
}

/**
 * The file repositories as a place other domains keep bytes in (run artifacts, under their own key
 * prefix): an organization's default, made as `ensure-default` makes it when missing, and a repository's
 * byte store by id. No request stands behind these calls, so nothing here checks a caller's rights.
 */
export class RepositoryBlobs {
  constructor(
    private readonly repo: RepositoriesRepo,
    private readonly repositories: RepositoriesService,
    private readonly stores: RepositoryStores,
  ) {}

  async defaultOf(orgId: string): Promise<RepositoryRef | undefined> {
    const row = await this.repo.defaultOf(orgId);
    return row ? refOf(row) : undefined;
  }

  /** The default, made (local, audited as `ensure-default` with no actor) when the organization has none. */
  async ensureDefault(orgId: string): Promise<RepositoryRef> {
    return refOf((await this.repositories.ensureDefaultRow(orgId, undefined)).row);
  }

  async store(repositoryId: string): Promise<BlobStore | undefined> {
    const row = await this.repo.byId(repositoryId);
    return row ? this.stores.of(row) : undefined;
  }

  /** Part files of writes into local repositories untouched since `before` (a daemon died during them). */
  async removeAbandonedParts(before: Date): Promise<number> {
    let removed = 0;
    for (const row of await this.repo.ofKind('local')) {
      const store = await this.stores.of(row);
      if (store instanceof LocalBlobStore) removed += await store.removeAbandoned(before);
    }
    return removed;
  }
}
