import { join } from 'node:path';
import type { DomainRoutes } from '../../http/types.js';
import type { MaintenanceJob } from '../maintenance/job.js';
import type { Services } from '../../services.js';
import { loadSecretsKey } from '../secrets/key/encryption-key.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { FileImporter, type FetchUrl } from './file-import.js';
import { FileLinks } from './file-links.js';
import { FileTexts, type FileTextReader } from './file-text.js';
import { fileRoutes } from './file-routes.js';
import { FileUsageRepo } from './file-usage-repo.js';
import { FileWriter } from './file-writer.js';
import { FilesRepo } from './files-repo.js';
import { FilesService } from './files-service.js';
import { FoldersService } from './folders-service.js';
import { RepositoriesRepo } from './repositories-repo.js';
import { RepositoriesService } from './repositories-service.js';
import { RepositoryBlobs } from './repository-blobs.js';
import { sweepRepositoryDirectories } from './repository-directories-sweep.js';
import { repositoryRoutes } from './repository-routes.js';
import { RepositoryStores } from './repository-stores.js';
import { signingKeyFrom, UrlSigner, type Clock } from './url-signer.js';

export interface FilesModule {
  readonly routes: readonly DomainRoutes[];
  /** The byte stores of repositories: what flow attachments and binary artifacts will keep their bytes in. */
  readonly stores: RepositoryStores;
  readonly files: FilesService;
  /** A small file's text, for an inventory provider's document named by file. */
  readonly texts: FileTextReader;
  /** Organizations' repositories as a place other domains keep bytes in (run artifacts, flow attachments). */
  readonly blobs: RepositoryBlobs;
  /** `files.sweep_repositories`: local repositories' directories whose repository is gone. */
  readonly maintenanceJobs: readonly MaintenanceJob[];
}

/** Files and file repositories (issue 22): local and S3 stores, uploads, presigned URLs, imports. `clock` is a test's. */
export function filesModule(
  services: Services,
  core: { secrets: SecretResolver; fetchUrl: FetchUrl },
  clock: Clock = () => new Date(),
): FilesModule {
  const { config, db, audit, orgAccess, log } = services;
  const filesRoot = join(config.dataDir, 'files');
  const stores = new RepositoryStores(filesRoot, core.secrets);
  const repositoriesRepo = new RepositoriesRepo(db.knex);
  const filesRepo = new FilesRepo(db.knex);
  const repositories = new RepositoriesService(repositoriesRepo, orgAccess, stores, audit);
  const writer = new FileWriter(filesRepo, audit, config.fileMaxBytes);
  const files = new FilesService(filesRepo, repositoriesRepo, repositories, stores, writer, new FileUsageRepo(db.knex), orgAccess, audit);
  const folders = new FoldersService(filesRepo, repositories, files, stores, audit);
  const key = signingKeyFrom(config.fileUrlSigningKey, async () => (await loadSecretsKey(config, log)).key);
  const links = new FileLinks(files, new UrlSigner(key, clock), {
    ttlSeconds: config.fileUrlTtlSeconds,
    deviceTtlSeconds: config.fileDeviceUrlTtlSeconds,
    deviceBaseUrl: config.deviceDownloadBaseUrl,
  });
  const importer = new FileImporter(files, core.fetchUrl, config.fileImportTimeoutMs);
  return {
    routes: [repositoryRoutes(repositories, folders), fileRoutes(files, links, importer)],
    stores,
    files,
    texts: new FileTexts(filesRepo, files, orgAccess),
    blobs: new RepositoryBlobs(repositoriesRepo, repositories, stores),
    maintenanceJobs: [{ name: 'files.sweep_repositories', run: () => sweepRepositoryDirectories(filesRoot, repositoriesRepo) }],
  };
}
