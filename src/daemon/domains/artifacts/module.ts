import { join } from 'node:path';
import type { DomainRoutes } from '../../http/types.js';
import type { MaintenanceJob } from '../maintenance/job.js';
import type { PurgeListener } from '../runs/runs-service.js';
import type { Services } from '../../services.js';
import { artifactStores, type Placement } from './artifact-store.js';
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

export type ArtifactStoreSetting = 'auto' | 'file' | 'database' | 'repository';

const NO_REPOSITORY = { repositoryId: null } as const;

/**
 * SERVICE_ARTIFACT_STORE for one organization's upload. `repository`: its default repository, whatever
 * its kind, made when it has none. `auto`: its default repository when that is one every daemon reaches
 * (S3); else files beside PGlite (one daemon) and chunks in PostgreSQL (shared by all). A local default
 * repository is no better than the file store for `auto`: each daemon has its own data directory.
 */
export async function placementFor(
  setting: ArtifactStoreSetting,
  database: 'postgres' | 'pglite',
  orgId: string,
  repositories: Pick<ArtifactRepositories, 'defaultOf' | 'ensureDefault'>,
): Promise<Placement> {
  if (setting === 'file' || setting === 'database') return { storage: setting, ...NO_REPOSITORY };
  if (setting === 'repository') return { storage: 'repository', repositoryId: (await repositories.ensureDefault(orgId)).id };
  const shared = await repositories.defaultOf(orgId);
  if (shared?.kind === 's3') return { storage: 'repository', repositoryId: shared.id };
  return { storage: database === 'postgres' ? 'database' : 'file', ...NO_REPOSITORY };
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
    (orgId) => placementFor(config.artifactStore, db.kind, orgId, core.repositories),
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
