import { platformHealthAnswer } from '../../../shared/api/platform-health.js';
import { noQuery } from '../../../shared/api/query.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { HealthRunner } from './health-runner.js';

/** `platform:health`: the deployment's dependencies, checked together (platform admins); docs/platform-health.md. */
export function platformHealthRoutes(runner: HealthRunner): DomainRoutes {
  return {
    'GET /platform/health': route({
      summary:
        'Each dependency of the deployment checked at once, within one time limit: `database`, `identity_provider`, `secret_backends`, `workers`, `scheduler`, `maintenance`, `registry`, `file_repositories`, each `{name, status: ok|degraded|down|not_configured, latency_ms, detail}`, and the overall `status` (the worst). Always 200 with the report, the database down included: `/ready` is what load balancers read. A report is served again for a few seconds (`cached`).',
      query: noQuery,
      responses: { 200: { description: 'The report', schema: platformHealthAnswer } },
      async handle(ctx) {
        ctx.body = await runner.report();
      },
    }),
  };
}
