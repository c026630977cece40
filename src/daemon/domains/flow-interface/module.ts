import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { FlowsModule } from '../flows/module.js';
import { LaunchFormService } from './launch-form-service.js';
import { builtInOptionSources, OptionSourceRegistry } from './option-sources.js';
import { OptionsRepo } from './options-repo.js';
import { launchFormRoutes } from './routes.js';

export interface FlowInterfaceModule {
  readonly routes: readonly DomainRoutes[];
  /** Where a later domain plugs its option source in. */
  readonly optionSources: OptionSourceRegistry;
}

/** The flow interface's launch form: option sources, launch validation and preview (docs/flow-interface.md). */
export function flowInterfaceModule(services: Services, core: { flows: FlowsModule }): FlowInterfaceModule {
  const repo = new OptionsRepo(services.db.knex);
  const optionSources = new OptionSourceRegistry();
  for (const source of builtInOptionSources(repo)) optionSources.register(source);
  return {
    routes: [launchFormRoutes(new LaunchFormService(core.flows.definitions, services.orgAccess, repo, optionSources))],
    optionSources,
  };
}
