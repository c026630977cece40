import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { registryCredentialRoutes } from './credentials-routes.js';
import { RegistryCredentialsRepo } from './credentials-repo.js';
import { RegistryCredentialsService } from './credentials-service.js';
import type { UpstreamHttp } from './upstream-login.js';

export interface RegistryModule {
  readonly routes: readonly DomainRoutes[];
}

/** Until the shared outbound guard is on this branch, no upstream is reached: every address is refused. */
const NO_OUTBOUND: UpstreamHttp = {
  request: () => Promise.reject(Object.assign(new Error('outbound requests are not available'), { reason: 'address_not_allowed' })),
};

/** The platform image registry: upstream credentials, the proxy's authorization, images; docs/registry.md. */
export function registryModule(services: Services, core: { secrets: SecretResolver }): RegistryModule {
  const credentials = new RegistryCredentialsService(
    new RegistryCredentialsRepo(services.db.knex),
    services.audit,
    core.secrets,
    NO_OUTBOUND,
  );
  return { routes: [registryCredentialRoutes(credentials)] };
}
