import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { FilesModule } from '../files/module.js';
import { BinaryArtifactsRepo } from './binary-artifacts-repo.js';
import { BinaryArtifactsService } from './binary-artifacts-service.js';
import { binaryArtifactRoutes } from './routes.js';

/** Members one bulk download's zip may carry: past a few hundred, a client is better served by several. */
const ZIP_MAX_ITEMS = 500;

export interface BinaryArtifactsModule {
  readonly routes: readonly DomainRoutes[];
}

/** Binary artifacts (issue 22, part B; docs/binary-artifacts.md): the files module's binary files, listed, zipped and purged. */
export function binaryArtifactsModule(services: Services, core: { files: FilesModule }): BinaryArtifactsModule {
  const repo = new BinaryArtifactsRepo(services.db.knex);
  const service = new BinaryArtifactsService(repo, core.files.files, services.orgAccess, {
    maxItems: ZIP_MAX_ITEMS,
    maxBytes: services.config.binaryArtifactZipMaxBytes,
  });
  return { routes: [binaryArtifactRoutes(service)] };
}
