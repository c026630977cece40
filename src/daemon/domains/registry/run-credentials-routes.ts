import { noQuery } from '../../../shared/api/query.js';
import { runRegistryCredentials } from '../../../shared/api/registry.js';
import { internalRunPath } from '../../../shared/api/run-callbacks.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { holderOf } from '../run-callbacks/fence.js';
import type { RunRegistryCredentialsReader } from './run-credentials.js';

/** The worker's read of a run's upstream registry logins (`internal:resolve`, `X-Internal-Token`, fenced by the run's holder). */
export function runRegistryCredentialRoutes(reader: RunRegistryCredentialsReader): DomainRoutes {
  return {
    'GET /internal/runs/{run_id}/registry-credentials': route({
      summary:
        "The upstream registry credentials of the run the caller holds (headers `X-Worker-Id`, `X-Run-Attempt`): its organization's own, each password resolved from its secret reference, so a container step can log in to upstream registries.",
      params: internalRunPath,
      query: noQuery,
      responses: {
        200: { description: '`{run_id, org_id, credentials, unresolved}`', schema: runRegistryCredentials },
        404: { description: 'No such run (`resource_not_found`)' },
        409: { description: '`run_not_held` (another worker or attempt), `invalid_run_state` (not running)' },
        422: { description: '`validation_failed`: a fencing header missing or malformed' },
      },
      async handle(ctx, { params }) {
        ctx.body = await reader.forRun(params.run_id, holderOf(ctx.req.headers));
      },
    }),
  };
}
