import type { Services } from '../../daemon.js';
import type { DomainRoutes } from '../../http/types.js';

export interface InventoryModule {
  readonly routes: readonly DomainRoutes[];
}

/** Sites and devices. Placeholder until the inventory change lands. */
export function inventoryModule(_services: Services): InventoryModule {
  return { routes: [] };
}
