import { listSyncRunsQuery, syncRun, syncRunList, syncRunPath } from '../../../shared/api/platform-sync-runs.js';
import { profilePath } from '../../../shared/api/platform-sync.js';
import { noQuery } from '../../../shared/api/query.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { SyncRunsService } from './runs-service.js';

/** The sync runs' reads (`platform_sync:view`); docs/platform-sync.md. */
export function runRoutes(service: SyncRunsService): DomainRoutes {
  return {
    'GET /platform-sync/profiles/{profile_id}/runs': route({
      summary: "The profile's sync runs (applies and exports), newest first. Filters: `kind`, `status`; `limit`, `offset`.",
      params: profilePath,
      query: listSyncRunsQuery,
      responses: {
        200: { description: '`items`, `total`, `limit`, `offset`', schema: syncRunList },
        404: { description: '`resource_not_found`: no such profile' },
      },
      async handle(ctx, { params, query }) {
        ctx.body = await service.list(params.profile_id, query);
      },
    }),
    'GET /platform-sync/runs/{run_id}': route({
      summary: 'One sync run: status, counts, who, the correlation id its audit entries carry, its problem when it failed.',
      params: syncRunPath,
      query: noQuery,
      responses: { 200: { description: 'The run', schema: syncRun }, 404: { description: '`resource_not_found`: no such run' } },
      async handle(ctx, { params }) {
        ctx.body = await service.get(params.run_id);
      },
    }),
  };
}
