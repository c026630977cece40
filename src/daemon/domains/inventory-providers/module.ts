import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { FileTextReader } from '../files/file-text.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { Credentials } from './credentials.js';
import { ImportRepo } from './import-repo.js';
import { ImportedRepo } from './imported-repo.js';
import { objectRoutes, pluginRoutes } from './object-routes.js';
import { ObjectsRepo } from './objects-repo.js';
import { ObjectsService } from './objects-service.js';
import { providerFetch } from './outbound.js';
import { ProviderHttp } from './provider-http.js';
import { providerRoutes } from './provider-routes.js';
import { ProvidersRepo } from './providers-repo.js';
import { ProvidersService } from './providers-service.js';
import { StaticDocuments } from './static-documents.js';
import { SyncEngine } from './sync-engine.js';
import { SyncRunsRepo } from './sync-runs-repo.js';
import { SyncService } from './sync-service.js';

export interface InventoryProvidersModule {
  readonly routes: readonly DomainRoutes[];
}

/** Inventory providers, their syncs, the objects they import, and the plugins (docs/inventory-providers.md). */
export function inventoryProvidersModule(
  services: Services,
  core: { secrets: SecretResolver; files: FileTextReader },
): InventoryProvidersModule {
  const { config, db } = services;
  const knex = db.knex;
  const repo = new ProvidersRepo(knex);
  const imported = new ImportedRepo(knex);
  const credentials = new Credentials(core.secrets);
  const documents = new StaticDocuments(core.files);
  const runs = new SyncRunsRepo(knex);
  const providers = new ProvidersService(repo, imported, credentials, documents, services.audit, runs);
  const fetch = providerFetch(services);
  const retry = {
    retries: config.inventoryHttpRetries,
    baseMs: config.inventoryHttpRetryBaseMs,
    maxWaitMs: config.inventoryHttpRetryMaxWaitMs,
  };
  const syncs = new SyncService(
    providers,
    repo,
    runs,
    new SyncEngine(knex, new ImportRepo(), imported, runs),
    imported,
    credentials,
    documents,
    (timeoutMs) => new ProviderHttp(fetch, retry, timeoutMs ?? config.outboundTimeoutMs),
    services.audit,
    config.inventorySyncLeaseSeconds * 1000,
  );
  return { routes: [providerRoutes(providers, syncs), objectRoutes(new ObjectsService(new ObjectsRepo(knex))), pluginRoutes()] };
}
