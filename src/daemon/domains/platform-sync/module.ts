import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import { authorizationRoutes } from './authorization-routes.js';
import { AuthorizationsRepo } from './authorizations-repo.js';
import { AuthorizationsService } from './authorizations-service.js';
import { profileRoutes } from './profile-routes.js';
import { ProfilesRepo } from './profiles-repo.js';
import { ProfilesService } from './profiles-service.js';
import { runRoutes } from './run-routes.js';
import { SyncRunsRepo } from './runs-repo.js';
import { SyncRunsService } from './runs-service.js';

export interface PlatformSyncModule {
  readonly routes: readonly DomainRoutes[];
}

/** Platform sync: profiles, destructive authorizations, sync runs; docs/platform-sync.md. */
export function platformSyncModule(services: Services, options: { clock?: (() => Date) | undefined } = {}): PlatformSyncModule {
  const now = options.clock ?? (() => new Date());
  const profilesRepo = new ProfilesRepo(services.db.knex);
  const profiles = new ProfilesService(profilesRepo, services.audit, services.orgAccess);
  const authorizations = new AuthorizationsService(new AuthorizationsRepo(services.db.knex), profilesRepo, profiles, services.audit, now);
  const runs = new SyncRunsService(new SyncRunsRepo(services.db.knex), profiles);
  return { routes: [profileRoutes(profiles), authorizationRoutes(authorizations), runRoutes(runs)] };
}
