import type { Services } from '../../services.js';
import type { DomainRoutes } from '../../http/types.js';
import { HeldRuns } from '../run-callbacks/held-runs.js';
import { RunCallbacksRepo } from '../run-callbacks/run-callbacks-repo.js';
import type { HoldState } from '../iac-states/iac-holds.js';
import type { StepEndHook } from '../run-callbacks/step-runs-service.js';
import { runTokenRoutes } from './routes.js';
import { MintFactsRepo, RunTokensRepo } from './run-tokens-repo.js';
import { RunTokensService } from './run-tokens-service.js';

export interface RunTokensModule {
  readonly routes: readonly DomainRoutes[];
  /** Revokes a finished step's tokens; the run callbacks call it when a step run finishes. */
  readonly stepEnded: StepEndHook;
}

/**
 * Run tokens' mint and revoke callbacks; their verification is `services.runTokens` (the consumers
 * authenticate with it). A mint asking to hold its state takes the hold through the IaC states' `holdState`.
 */
export function runTokensModule(services: Services, core: { holdState: HoldState }, clock?: () => Date): RunTokensModule {
  const knex = services.db.knex;
  const service = new RunTokensService(
    new RunTokensRepo(knex),
    new MintFactsRepo(),
    new HeldRuns(new RunCallbacksRepo(knex)),
    services.audit,
    services.config.runTokenTtlSeconds,
    core.holdState,
    clock,
  );
  return { routes: [runTokenRoutes(service)], stepEnded: service.stepEnded };
}
