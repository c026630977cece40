import type { Services } from '../../services.js';
import type { DomainRoutes } from '../../http/types.js';
import type { DataSealer } from '../secrets/key/data-sealer.js';
import type { StepEndHook } from '../run-callbacks/step-runs-service.js';
import { IacHolds, type HoldState } from './iac-holds.js';
import { IacStatesRepo } from './iac-states-repo.js';
import { IacStatesService } from './iac-states-service.js';
import { backendRoutes } from './routes-backend.js';
import { manageRoutes } from './routes-manage.js';

export interface IacStatesModule {
  readonly routes: readonly DomainRoutes[];
  /** A run's hold on a state, taken when its plan step's token is minted (run tokens call it). */
  readonly holdState: HoldState;
  /** Releases what a finished step left: its lock, and a hold it applied (the run callbacks call it). */
  readonly stepEnded: StepEndHook;
}

/** Managed IaC states; documents sealed under the secrets key (the secrets module's sealer). docs/iac-states.md. */
export function iacStatesModule(services: Services, core: { sealer: DataSealer }): IacStatesModule {
  const repo = new IacStatesRepo(services.db.knex);
  const service = new IacStatesService(repo, core.sealer, services.audit);
  const holds = new IacHolds(repo, services.audit);
  const max = services.config.iacStateMaxBytes;
  return {
    routes: [backendRoutes(service, services.overrideStore, max), manageRoutes(service, max)],
    holdState: holds.hold,
    stepEnded: holds.stepEnded,
  };
}
