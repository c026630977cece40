import { noQuery } from '../../../shared/api/query.js';
import { internalSecretBackends } from '../../../shared/api/variables.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { isAvailableType } from './backends/backend-types.js';
import type { SecretBackendsRepo } from './secret-backends-repo.js';

/**
 * The worker's view of the secret backends (`internal:resolve`): which schemes a bare reference may name
 * and whether this build reads them. No configuration: the daemon alone reads backends, and hands a run
 * its secrets' values through `GET /internal/variables` (a `secret_ref` variable).
 */
export function internalBackendRoutes(backends: SecretBackendsRepo): DomainRoutes {
  return {
    'GET /internal/secrets-backends': route({
      summary: 'The secret backends by scheme, the default first, and whether this build reads each; never their configuration.',
      query: noQuery,
      responses: { 200: { description: '`items`', schema: internalSecretBackends } },
      async handle(ctx) {
        const rows = await backends.all();
        ctx.body = {
          items: rows.map((row) => ({
            id: row.id,
            name: row.name,
            type: row.type,
            scheme: row.scheme,
            is_default: row.is_default,
            available: isAvailableType(row.type),
          })),
        };
      },
    }),
  };
}
