import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import { RepositoriesRepo } from '../files/repositories-repo.js';
import type { RepositoryStores } from '../files/repository-stores.js';
import { JobRunsRepo } from '../maintenance/job-runs-repo.js';
import { RegistryApi } from '../registry/registry-api.js';
import type { BackendHealthReport } from '../secrets/module.js';
import { WorkersRepo } from '../workers/workers-repo.js';
import { fileRepositoriesProbe } from './file-repositories-probe.js';
import { HealthRunner } from './health-runner.js';
import { maintenanceProbe, schedulerProbe } from './job-probes.js';
import { databaseProbe, identityProviderProbe, registryProbe, secretBackendsProbe, workersProbe } from './platform-probes.js';
import { platformHealthRoutes } from './routes.js';

/** The report's time limit: under the database's acquire and query timeouts, so a lost database is reported, not waited for. */
const LIMIT_MS = 2500;
/** Each file repository's check's limit, under the report's so the slow ones are named. */
const REPOSITORY_TIMEOUT_MS = 2000;
const MAX_REPOSITORIES = 20;
const CACHE_MS = 5000;

export interface PlatformHealthModule {
  readonly routes: readonly DomainRoutes[];
}

/** Platform health (issue 27): every dependency's check, run together under one limit; docs/platform-health.md. */
export function platformHealthModule(
  services: Services,
  core: {
    secretBackends: () => Promise<BackendHealthReport[]>;
    stores: RepositoryStores;
    maintenanceJobs: readonly string[];
  },
): PlatformHealthModule {
  const { config, db, jwt } = services;
  const jobs = new JobRunsRepo(db.knex);
  const listJobs = () => jobs.listJobs();
  const now = () => new Date();
  const pass = {
    intervalSeconds: config.maintenanceIntervalSeconds ?? config.runReaperIntervalSeconds,
    timerEnabled: config.maintenanceTimerEnabled,
    schedulerEnabled: config.schedulerEnabled,
    registered: core.maintenanceJobs,
  };
  const runner = new HealthRunner(
    [
      databaseProbe(db.knex),
      identityProviderProbe(jwt, config.idpIssuer),
      secretBackendsProbe(core.secretBackends),
      workersProbe(new WorkersRepo(db.knex), config.runLeaseSeconds),
      schedulerProbe(listJobs, pass, now),
      maintenanceProbe(listJobs, pass, now),
      registryProbe(new RegistryApi(config.registryUrl, Math.min(config.registryTimeoutMs, LIMIT_MS)), config.registryUrl),
      fileRepositoriesProbe(new RepositoriesRepo(db.knex), core.stores, { max: MAX_REPOSITORIES, itemTimeoutMs: REPOSITORY_TIMEOUT_MS }),
    ],
    { limitMs: LIMIT_MS, cacheMs: CACHE_MS },
  );
  return { routes: [platformHealthRoutes(runner)] };
}
