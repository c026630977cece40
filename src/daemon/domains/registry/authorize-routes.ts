import { registryAuthorizeQuery } from '../../../shared/api/registry.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { RegistryAuthorizer } from './registry-authorizer.js';

/** The registry proxy's question (`registry:authorize`, policy custom: the handler authenticates); docs/registry.md. */
export function registryAuthorizeRoutes(authorizer: RegistryAuthorizer): DomainRoutes {
  return {
    'GET /registry/authorize': route({
      summary:
        "Asked by the registry's proxy (nginx `auth_request`) before each registry request, with `X-Registry-Proxy-Secret`, `X-Original-Method`, `X-Original-URI` and the client's `Authorization: Basic` (a registry run token as password). 204 allowed; 401 with a Basic challenge; 403; 404 without the proxy's secret.",
      query: registryAuthorizeQuery,
      responses: {
        204: { description: 'Allowed' },
        401: {
          description:
            '`unauthenticated` (no Basic credential) or `invalid_token` (not a live registry run token), with `WWW-Authenticate: Basic`',
        },
        403: { description: "`forbidden`: the token's organization may not do what the request asks (deletes and the catalogue: never)" },
        404: { description: "`not_found`: the proxy's secret header is missing or wrong" },
      },
      handle(ctx) {
        const decided = authorizer.authorize(ctx.req.headers, ctx.state.audit);
        if (decided instanceof Promise) return decided.then(() => void (ctx.status = 204));
        ctx.status = 204;
      },
    }),
  };
}
