import { problem } from '../../../shared/api/problem.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { RepositoriesRepo, RepositoryRow } from './repositories-repo.js';
import type { OrgRef, RepositoriesService } from './repositories-service.js';
import type { RepositoryStores } from './repository-stores.js';

/**
 * The byte stores other domains keep their bytes in (flow attachments; binary artifacts to come): the
 * organization's default repository, made by `ensure-default`'s rule when it has none, for new bytes;
 * the repository a row names, for bytes already stored.
 */
export class OrgStores {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly repo: RepositoriesRepo,
    private readonly stores: RepositoryStores,
  ) {}

  async defaultFor(org: OrgRef, context: AuditContext | undefined): Promise<{ repository: RepositoryRow; store: BlobStore }> {
    const { repository } = await this.repositories.ensureDefault(org, context);
    return this.of(repository.id);
  }

  async of(repositoryId: string): Promise<{ repository: RepositoryRow; store: BlobStore }> {
    const repository = await this.repo.byId(repositoryId);
    if (!repository) throw problem('attachment_unavailable', 'The file repository holding these bytes is gone.');
    return { repository, store: await this.stores.of(repository) };
  }
}
