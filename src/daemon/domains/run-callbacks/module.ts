import type { Services } from '../../services.js';
import type { DomainRoutes } from '../../http/types.js';
import type { RunAdmission } from '../runs/run-admission.js';
import type { RunsService } from '../runs/runs-service.js';
import { ChildRunsRepo } from './child-runs-repo.js';
import { ChildRunsService } from './child-runs-service.js';
import { EventBatchRepo } from './event-batch-repo.js';
import { EventBatchService } from './event-batch-service.js';
import { HeldRuns } from './held-runs.js';
import { RunCallbacksRepo } from './run-callbacks-repo.js';
import { RunCallbacksService } from './run-callbacks-service.js';
import { runCallbackRoutes } from './routes.js';
import { StepRunsRepo } from './step-runs-repo.js';
import { type StepEndHook, StepRunsService } from './step-runs-service.js';

export interface RunCallbacksModule {
  readonly routes: readonly DomainRoutes[];
}

/**
 * The worker's run callbacks: it needs runs' admission (child runs) and its cancel (the cascade);
 * each of `stepEnded` is told when a step run finishes (run tokens, IaC states).
 */
export function runCallbacksModule(
  services: Services,
  core: { admission: RunAdmission; runs: RunsService; stepEnded?: readonly StepEndHook[] },
): RunCallbacksModule {
  const knex = services.db.knex;
  const repo = new RunCallbacksRepo(knex);
  const held = new HeldRuns(repo);
  return {
    routes: [
      runCallbackRoutes({
        runs: new RunCallbacksService(repo, held, core.runs, services.audit),
        events: new EventBatchService(new EventBatchRepo(knex)),
        stepRuns: new StepRunsService(new StepRunsRepo(knex), repo, held, core.stepEnded),
        children: new ChildRunsService(new ChildRunsRepo(), held, core.admission),
      }),
    ],
  };
}
