import type { AuditContext } from '../../audit/audit-context.js';
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
 * The file repositories as a place other domains keep bytes in (run artifacts, flow attachments, each
 * under its own key prefix): an organization's default, made as `ensure-default` makes it when missing,
 * and a repository's byte store by id. Nothing here checks a caller's rights: the calling domain has.
 */
export class RepositoryBlobs {
  constructor(
    private readonly repo: RepositoriesRepo,
    private readonly repositories: RepositoriesService,
    private readonly stores: RepositoryStores,
  ) {}

  /**
   * The default, made (local, audited as `ensure-default` with no actor) when the organization has none.
   * Read first without the organization's lock, which only making one needs: every run artifact's upload asks.
   */
  async ensureDefault(orgId: string): Promise<RepositoryRef> {
    const existing = await this.repo.defaultOf(orgId);
    return refOf(existing ?? (await this.repositories.ensureDefaultRow(orgId, undefined)).row);
  }

  /** The default and its store, for new bytes; a default made here is audited in `context` (the request's, if any). */
  async defaultStore(orgId: string, context: AuditContext | undefined): Promise<{ repository: RepositoryRef; store: BlobStore }> {
    const { row } = await this.repositories.ensureDefaultRow(orgId, context);
    return { repository: refOf(row), store: await this.stores.of(row) };
  }

  /** The store of the repository holding stored bytes; undefined when the repository is gone. */
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
