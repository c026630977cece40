import type { Services } from '../../services.js';
import type { DomainRoutes } from '../../http/types.js';
import { AdmissionRepo } from './admission-repo.js';
import type { RunAdmission } from './run-admission.js';
import { RunAdmissionService } from './run-admission-service.js';
import { runRoutes } from './routes.js';
import { RunsRepo } from './runs-repo.js';
import { RunsService } from './runs-service.js';

export interface RunsModule {
  readonly routes: readonly DomainRoutes[];
  /** The one run admission: the manual route uses it, and so do schedules and webhooks. */
  readonly admission: RunAdmission;
  readonly runs: RunsService;
}

/** Runs and run admission. */
export function runsModule(services: Services): RunsModule {
  const admission = new RunAdmissionService(new AdmissionRepo(services.triggerConfig.cache()), services.audit, {
    maxTargets: services.config.inventoryMaxRunTargets,
  });
  const runs = new RunsService(new RunsRepo(services.db.knex), admission, services.audit);
  return { routes: [runRoutes(runs)], admission, runs };
}
