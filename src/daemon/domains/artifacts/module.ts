import { join } from 'node:path';
import type { DomainRoutes } from '../../http/types.js';
import type { MaintenanceJob } from '../maintenance/job.js';
import type { PurgeListener } from '../runs/runs-service.js';
import type { Services } from '../../services.js';
import { artifactStores, type Placement, type StorageKind } from './artifact-store.js';
import { ArtifactsRepo } from './artifacts-repo.js';
import { ArtifactsService } from './artifacts-service.js';
import { DatabaseArtifactStore } from './database-artifact-store.js';
import { FileArtifactStore } from './file-artifact-store.js';
import { type ArtifactRepositories, RepositoryArtifactStore } from './repository-artifact-store.js';
import { artifactRoutes } from './routes.js';

export interface ArtifactsModule {
  readonly routes: readonly DomainRoutes[];
  /** Removes a purged run's artifact bytes that its rows' cascade cannot (files, repository objects); registered with the runs' purge. */
  readonly runPurged: PurgeListener;
  /** A maintenance job (`{runs_removed, parts_removed}`): artifact files whose run is gone, abandoned part files and chunks. */
  readonly sweep: (now: Date) => Promise<{ runs_removed: number; parts_removed: number }>;
  /** The maintenance pass's job that calls `sweep`. */
  readonly maintenanceJobs: readonly MaintenanceJob[];
}

export type ArtifactStoreSetting = StorageKind;

const NO_REPOSITORY = { repositoryId: null } as const;

/**
 * SERVICE_ARTIFACT_STORE for one organization's upload. `repository` (the default): its default file
 * repository, where its files and flow attachments are kept too, made (local) when it has none. `file`
 * and `database`: that store, for every organization.
 */
export async function placementFor(
  setting: ArtifactStoreSetting,
  orgId: string,
  repositories: Pick<ArtifactRepositories, 'ensureDefault'>,
): Promise<Placement> {
  if (setting !== 'repository') return { storage: setting, ...NO_REPOSITORY };
  return { storage: 'repository', repositoryId: (await repositories.ensureDefault(orgId)).id };
}

/** Run artifacts: every store (rows say which holds their bytes), where new uploads go, and the routes. */
export function artifactsModule(services: Services, core: { repositories: ArtifactRepositories }): ArtifactsModule {
  const { config, db, log } = services;
  const stores = artifactStores(
    [
      new FileArtifactStore(join(config.dataDir, 'artifacts')),
      new DatabaseArtifactStore(db.knex),
      new RepositoryArtifactStore(core.repositories),
    ],
    (orgId) => placementFor(config.artifactStore, orgId, core.repositories),
  );
  const service = new ArtifactsService(new ArtifactsRepo(db.knex), stores, {
    maxBytes: config.artifactMaxBytes,
    runMaxBytes: config.artifactRunMaxBytes,
  });
  return {
    routes: [artifactRoutes(service)],
    sweep: (now) => service.sweep(now),
    maintenanceJobs: [{ name: 'artifacts.sweep', run: (now) => service.sweep(now) }],
    runPurged: async (trx, runId) => {
      const cleanUp = await service.runPurging(trx, runId);
      return async () => {
        // The run is gone whatever happens here: bytes left behind are logged, not a failed purge.
        try {
          await cleanUp();
        } catch (error) {
          log.error({ err: error, run_id: runId }, "could not remove a purged run's artifact bytes");
        }
      };
    },
  };
}
