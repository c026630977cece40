import { join } from 'node:path';
import type { DomainRoutes } from '../../http/types.js';
import type { MaintenanceJob } from '../maintenance/job.js';
import type { Services } from '../../services.js';
import { artifactStores, type StorageKind } from './artifact-store.js';
import { ArtifactsRepo } from './artifacts-repo.js';
import { ArtifactsService } from './artifacts-service.js';
import { DatabaseArtifactStore } from './database-artifact-store.js';
import { FileArtifactStore } from './file-artifact-store.js';
import { artifactRoutes } from './routes.js';

export interface ArtifactsModule {
  readonly routes: readonly DomainRoutes[];
  /** Removes a purged run's artifact bytes that its rows' cascade cannot (files); registered with the runs' purge. */
  readonly runPurged: (runId: string) => Promise<void>;
  /** A maintenance job (`{runs_removed, parts_removed}`): artifact files whose run is gone, abandoned part files. */
  readonly sweep: (now: Date) => Promise<{ runs_removed: number; parts_removed: number }>;
  /** The maintenance pass's job that calls `sweep`. */
  readonly maintenanceJobs: readonly MaintenanceJob[];
}

/** SERVICE_ARTIFACT_STORE: `auto` keeps files beside PGlite (one daemon) and chunks in PostgreSQL (shared by all). */
export function writeStore(setting: 'auto' | StorageKind, database: 'postgres' | 'pglite'): StorageKind {
  if (setting !== 'auto') return setting;
  return database === 'postgres' ? 'database' : 'file';
}

/** Run artifacts: both stores (rows say which holds their bytes), the one new uploads go to, and the routes. */
export function artifactsModule(services: Services): ArtifactsModule {
  const { config, db, log } = services;
  const stores = artifactStores(
    [new FileArtifactStore(join(config.dataDir, 'artifacts')), new DatabaseArtifactStore(db.knex)],
    writeStore(config.artifactStore, db.kind),
  );
  const service = new ArtifactsService(new ArtifactsRepo(db.knex), stores, {
    maxBytes: config.artifactMaxBytes,
    runMaxBytes: config.artifactRunMaxBytes,
  });
  return {
    routes: [artifactRoutes(service)],
    sweep: (now) => service.sweep(now),
    maintenanceJobs: [{ name: 'artifacts.sweep', run: (now) => service.sweep(now) }],
    runPurged: async (runId) => {
      // The run is gone whatever happens here: a file left behind is logged, not a failed purge.
      try {
        await service.runPurged(runId);
      } catch (error) {
        log.error({ err: error, run_id: runId }, "could not remove a purged run's artifact files");
      }
    },
  };
}
