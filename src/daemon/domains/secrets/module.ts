import type { ConfigError } from '../../config/config.js';
import type { Services } from '../../services.js';
import type { DomainRoutes } from '../../http/types.js';
import { BackendRegistry } from './backends/backend-registry.js';
import { SecretValuesRepo } from './backends/secret-values-repo.js';
import { loadSecretsKey } from './key/encryption-key.js';
import { DataSealer } from './key/data-sealer.js';
import { KeyChecksRepo } from './key/key-checks-repo.js';
import { KeyGuard } from './key/key-guard.js';
import { SecretsResolver } from './resolver.js';
import { SecretBackendsRepo } from './secret-backends-repo.js';
import { secretBackendRoutes } from './secret-backends-routes.js';
import { SecretBackendsService } from './secret-backends-service.js';
import type { SecretResolver } from './secret-resolver.js';
import { secretRoutes } from './secrets-routes.js';
import { SecretsService } from './secrets-service.js';
import { SecretsRepo } from './secrets-repo.js';
import { internalBackendRoutes } from './internal-backends-routes.js';

export interface SecretsModule {
  readonly routes: readonly DomainRoutes[];
  readonly resolver: SecretResolver;
  /** Encryption at rest under the secrets key for other domains' documents (IaC state versions). */
  readonly sealer: DataSealer;
  /**
   * For a daemon whose database came up after start-up: checks the key now (retrying while the database
   * does not answer) and calls `onMismatch` when it is the wrong one. Until checked, the built-in backend refuses.
   */
  verifyKeyLater(onMismatch: (error: ConfigError) => void): void;
  /** Every backend's health as its implementation reports it (platform health): a failing one is `ok: false`, not an error. */
  backendsHealth(): Promise<BackendHealthReport[]>;
}

export interface BackendHealthReport {
  readonly name: string;
  readonly type: string;
  readonly is_default: boolean;
  readonly ok: boolean;
  readonly detail: string;
}

export interface SecretsModuleOptions {
  /** False when the database did not answer at start-up: the key check then waits for `verifyKeyLater`. */
  readonly schemaReady?: boolean;
}

/**
 * Secrets and secret backends. Loads the built-in backend's key (from the setting, or the key file
 * outside production) and, when the schema is ready, checks it against the database: a wrong key
 * rejects with a ConfigError naming SERVICE_SECRETS_ENCRYPTION_KEY, so start-up fails loudly rather than
 * every read failing later.
 */
export async function openSecretsModule(services: Services, options: SecretsModuleOptions = {}): Promise<SecretsModule> {
  const { config, db, log, audit } = services;
  const key = await loadSecretsKey(config, log);
  const guard = new KeyGuard(new KeyChecksRepo(db.knex), key, log);
  if (options.schemaReady !== false) await guard.verify();

  const secrets = new SecretsRepo(db.knex, services.triggerConfig.invalidate);
  const backends = new SecretBackendsRepo(db.knex);
  const registry = new BackendRegistry(new SecretValuesRepo(db.knex), key, guard);
  const secretLog = log.child({ domain: 'secrets' });
  const resolver = new SecretsResolver(
    secrets,
    backends,
    registry,
    async (orgId) => (await services.orgs.findByRef(orgId))?.slug,
    services.triggerConfig.cache(),
  );
  return {
    routes: [
      secretRoutes(new SecretsService(secrets, backends, registry, audit, secretLog)),
      secretBackendRoutes(new SecretBackendsService(backends, registry, audit, secretLog)),
      internalBackendRoutes(backends),
    ],
    resolver,
    sealer: new DataSealer(key, guard),
    verifyKeyLater: (onMismatch) => guard.verifyInBackground(onMismatch),
    backendsHealth: async () =>
      Promise.all(
        (await backends.all()).map(async (row) => {
          const health = await registry
            .for(row)
            .health()
            .catch(() => ({ ok: false, detail: 'the health check failed' }));
          return { name: row.name, type: row.type, is_default: row.is_default, ok: health.ok, detail: health.detail };
        }),
      ),
  };
}
