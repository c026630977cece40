import { RUN_TOKENS_CHANNEL } from '../../db/channels.js';
import { ReloadTriggers } from '../../db/reload-triggers.js';
import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { registryAuthorizeRoutes } from './authorize-routes.js';
import { registryCredentialRoutes } from './credentials-routes.js';
import { RegistryCredentialsRepo } from './credentials-repo.js';
import { RegistryCredentialsService } from './credentials-service.js';
import { imageRoutes, platformImageRoutes } from './images-routes.js';
import { ImagesService } from './images-service.js';
import { RegistryApi } from './registry-api.js';
import { RegistryAuthorizer } from './registry-authorizer.js';
import { RunRegistryCredentialsReader } from './run-credentials.js';
import { runRegistryCredentialRoutes } from './run-credentials-routes.js';
import { CachedRunTokens, type RunTokenCheck } from './run-token-cache.js';

export interface RegistryModule {
  readonly routes: readonly DomainRoutes[];
  /** Starts forgetting verified run tokens on `svc_run_tokens` (and periodically, as the backstop). */
  start(): void;
  stop(): Promise<void>;
}

/** The platform image registry: upstream credentials, the proxy's authorization, images; docs/registry.md. */
export function registryModule(services: Services, core: { secrets: SecretResolver; runTokens: RunTokenCheck }): RegistryModule {
  const credentialsRepo = new RegistryCredentialsRepo(services.db.knex);
  const credentials = new RegistryCredentialsService(credentialsRepo, services.audit, core.secrets, services.outbound);
  const api = new RegistryApi(services.config.registryUrl, services.config.registryTimeoutMs);
  const images = new ImagesService(api, services.orgAccess, services.audit, (slugs) => orgIdsBySlug(services, slugs));
  const tokens = new CachedRunTokens(core.runTokens, { ttlMs: services.config.permissionRefreshSeconds * 1000 });
  const sync = new ReloadTriggers({
    listen: services.db.listen,
    refreshSeconds: services.config.permissionRefreshSeconds,
    channel: RUN_TOKENS_CHANNEL,
    reload: () => tokens.invalidate(),
  });
  const authorizer = new RegistryAuthorizer(services.config.registryProxySecret, tokens, services.orgAccess, services.audit);
  return {
    routes: [
      registryCredentialRoutes(credentials),
      registryAuthorizeRoutes(authorizer),
      imageRoutes(images),
      platformImageRoutes(images),
      runRegistryCredentialRoutes(new RunRegistryCredentialsReader(credentialsRepo, core.secrets)),
    ],
    start: () => sync.start(),
    stop: () => sync.stop(),
  };
}

async function orgIdsBySlug(services: Services, slugs: readonly string[]): Promise<Map<string, string>> {
  const known = await Promise.all(slugs.map((slug) => services.orgAccess.org(slug)));
  return new Map(known.filter((org) => org !== undefined).map((org) => [org.slug, org.id]));
}
