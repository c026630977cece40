import type { Services } from '../../daemon.js';
import type { DomainRoutes } from '../../http/types.js';

export interface FlowsModule {
  readonly routes: readonly DomainRoutes[];
}

/** Flows, drafts and committed versions. Placeholder until the flows change lands. */
export function flowsModule(_services: Services): FlowsModule {
  return { routes: [] };
}
