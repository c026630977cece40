import type { DomainRoutes } from '../../http/types.js';

/** `GET /flows/step-handler-types/{handler_id}/docs`. Placeholder until the handler catalogue lands. */
export function stepHandlerRoutes(): DomainRoutes {
  return {};
}
