import type { Services } from '../../services.js';
import type { DomainRoutes } from '../../http/types.js';
import { DeviceDirectory } from './device-directory.js';
import { deviceRoutes } from './device-routes.js';
import { DevicesRepo } from './devices-repo.js';
import { DevicesService } from './devices-service.js';
import { siteRoutes } from './site-routes.js';
import { SitesRepo } from './sites-repo.js';
import { SitesService } from './sites-service.js';

export interface InventoryModule {
  readonly routes: readonly DomainRoutes[];
  /** Live-device lookups for the trigger paths (run admission, webhooks). */
  readonly devices: DeviceDirectory;
}

/** Sites and devices. */
export function inventoryModule(services: Services): InventoryModule {
  const knex = services.db.knex;
  const sitesRepo = new SitesRepo(knex);
  const sites = new SitesService(sitesRepo, services.orgAccess, services.audit);
  const devices = new DevicesService(
    new DevicesRepo(knex),
    sitesRepo,
    services.orgAccess,
    services.audit,
    services.config.inventoryMaxRunTargets,
  );
  return { routes: [siteRoutes(sites), deviceRoutes(devices)], devices: new DeviceDirectory(knex) };
}
