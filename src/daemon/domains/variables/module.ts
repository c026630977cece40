import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { FlowsModule } from '../flows/module.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { variableContextRoutes } from '../variable-contexts/routes.js';
import { VariableContextsService } from '../variable-contexts/variable-contexts-service.js';
import { internalVariableRoutes, variableRoutes } from './routes.js';
import { RunVariables } from './run-variables.js';
import { VariablesRepo } from './variables-repo.js';
import { VariablesService } from './variables-service.js';

export interface VariablesModule {
  readonly routes: readonly DomainRoutes[];
  /** Live variables by name and type, never values: what the flow interface and editor contexts read. */
  readonly repo: VariablesRepo;
}

/** Variables (docs/variables.md): their management, the worker's read of a run's values, and the editor's contexts (names only). */
export function variablesModule(services: Services, core: { secrets: SecretResolver; flows: FlowsModule }): VariablesModule {
  const repo = new VariablesRepo(services.db.knex);
  return {
    routes: [
      variableRoutes(new VariablesService(repo, services.orgAccess, services.audit)),
      internalVariableRoutes(new RunVariables(repo, services.orgAccess, core.secrets)),
      variableContextRoutes(new VariableContextsService(core.flows.definitions, services.orgAccess, repo)),
    ],
    repo,
  };
}
