import type { AuditContext } from '../audit/audit-context.js';
import type { AuditWriter } from '../audit/audit-writer.js';
import type { CatalogueRoute } from '../../shared/catalogue/types.js';

/** The `authz.denied` entry of a refused request: the route's pattern (never the concrete path) and why. */
export function recordDenial(
  audit: AuditWriter,
  context: AuditContext | undefined,
  route: CatalogueRoute,
  details: Record<string, unknown>,
): Promise<string> {
  return audit.record(context, {
    eventType: 'authz.denied',
    action: route.action,
    resourceType: 'route',
    resourceId: `${route.method} ${route.path}`,
    outcome: 'denied',
    details,
  });
}
