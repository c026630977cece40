import type { Services } from '../../services.js';
import type { DomainRoutes } from '../../http/types.js';
import type { DataSealer } from '../secrets/key/data-sealer.js';
import { IacStatesRepo } from './iac-states-repo.js';
import { IacStatesService } from './iac-states-service.js';
import { backendRoutes } from './routes-backend.js';
import { manageRoutes } from './routes-manage.js';

export interface IacStatesModule {
  readonly routes: readonly DomainRoutes[];
}

/** Managed IaC states; documents sealed under the secrets key (the secrets module's sealer). docs/iac-states.md. */
export function iacStatesModule(services: Services, core: { sealer: DataSealer }): IacStatesModule {
  const service = new IacStatesService(new IacStatesRepo(services.db.knex), core.sealer, services.audit);
  const max = services.config.iacStateMaxBytes;
  return { routes: [backendRoutes(service, services.overrideStore, max), manageRoutes(service, max)] };
}
