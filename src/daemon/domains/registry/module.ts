import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { registryCredentialRoutes } from './credentials-routes.js';
import { RegistryCredentialsRepo } from './credentials-repo.js';
import { RegistryCredentialsService } from './credentials-service.js';

export interface RegistryModule {
  readonly routes: readonly DomainRoutes[];
}

/** The platform image registry: upstream credentials, the proxy's authorization, images; docs/registry.md. */
export function registryModule(services: Services, core: { secrets: SecretResolver }): RegistryModule {
  const credentials = new RegistryCredentialsService(
    new RegistryCredentialsRepo(services.db.knex),
    services.audit,
    core.secrets,
    services.outbound,
  );
  return { routes: [registryCredentialRoutes(credentials)] };
}
