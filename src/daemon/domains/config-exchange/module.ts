import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import { ConfigExchangeService } from './config-exchange-service.js';
import { buildEngine, type ConfigExchangeEngine, type FamilyDeps } from './engine/index.js';
import { OperationRunner } from './operation-runner.js';
import { OperationsRepo } from './repos/operations-repo.js';
import { configExchangeRoutes } from './routes.js';

export interface ConfigExchangeModule {
  readonly routes: readonly DomainRoutes[];
  /** The engine, for other domains that export, plan or apply (platform sync). */
  readonly engine: ConfigExchangeEngine;
  /** This instance's runner of queued operations (started and stopped with the daemon). */
  readonly runner: OperationRunner;
}

/** Configuration exchange (docs/config-exchange.md): the engine, its operations and their runner. */
export function configExchangeModule(services: Services, deps: FamilyDeps): ConfigExchangeModule {
  const engine = buildEngine(services, deps);
  const repo = new OperationsRepo(services.db.knex);
  const runner = new OperationRunner(engine, repo, services.orgs, services.log);
  const service = new ConfigExchangeService(engine, repo, services.orgs, services.audit, () => runner.wake());
  return { routes: [configExchangeRoutes(service)], engine, runner };
}
