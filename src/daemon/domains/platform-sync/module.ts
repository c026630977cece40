import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { ConfigExchangeEngine } from '../config-exchange/engine/index.js';
import type { FileTextReader } from '../files/file-text.js';
import type { SecretResolver } from '../secrets/secret-resolver.js';
import { ApplyService } from './apply-service.js';
import { authorizationRoutes } from './authorization-routes.js';
import { AuthorizationsRepo } from './authorizations-repo.js';
import { AuthorizationsService } from './authorizations-service.js';
import { DriftService } from './drift-service.js';
import { planRoutes } from './plan-routes.js';
import { PlansRepo } from './plans-repo.js';
import { PlansService } from './plans-service.js';
import { profileRoutes } from './profile-routes.js';
import { ProfilesRepo } from './profiles-repo.js';
import { ProfilesService } from './profiles-service.js';
import { runRoutes } from './run-routes.js';
import { SyncRunsRepo } from './runs-repo.js';
import { SyncRunsService } from './runs-service.js';
import { SourceReader } from './source-reader.js';

export interface PlatformSyncModule {
  readonly routes: readonly DomainRoutes[];
}

export interface PlatformSyncCore {
  /** Configuration exchange's engine: the families, parse, plan, apply, export. */
  readonly engine: ConfigExchangeEngine;
  /** Resolves a profile's installation token. */
  readonly secrets: Pick<SecretResolver, 'resolveReference'>;
  /** Reads a profile's bundle file. */
  readonly files: FileTextReader;
}

/** How often and how long a plan waits for another installation's export operation. */
const SOURCE_POLL = { pollMs: 250, waitMs: 120_000 };

/**
 * Platform sync: profiles, plans through the configuration exchange engine, conflicts, destructive
 * authorizations, apply, drift, export, sync runs; docs/platform-sync.md.
 */
export function platformSyncModule(services: Services, core: PlatformSyncCore, clock?: () => Date): PlatformSyncModule {
  const now = clock ?? (() => new Date());
  const { knex } = services.db;
  const { engine } = core;
  const profilesRepo = new ProfilesRepo(knex);
  const plansRepo = new PlansRepo(knex);
  const runsRepo = new SyncRunsRepo(knex);
  const familiesOf = (scope: 'org' | 'platform') => engine.families.filter((f) => f.scope === scope).map((f) => f.name);
  const profiles = new ProfilesService(profilesRepo, services.audit, services.orgAccess, familiesOf);
  const authorizations = new AuthorizationsService(new AuthorizationsRepo(knex), profilesRepo, profiles, services.audit, now);
  const source = new SourceReader(core.secrets, core.files, services.outbound, SOURCE_POLL);
  const plans = new PlansService(plansRepo, profiles, engine, source, services.orgAccess, services.audit, now);
  const applies = new ApplyService(engine, profiles, profilesRepo, plans, plansRepo, authorizations, runsRepo, services.audit, now);
  return {
    routes: [
      profileRoutes(profiles),
      authorizationRoutes(authorizations),
      runRoutes(new SyncRunsService(runsRepo, profiles)),
      planRoutes(plans, applies, new DriftService(engine, profiles, plans, plansRepo)),
    ],
  };
}
