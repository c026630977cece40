import { noQuery } from '../../../shared/api/query.js';
import {
  imageNamespaceList,
  imageRepository,
  imageRepositoryList,
  imageRepositoryQuery,
  imageTagQuery,
  imageUsage,
  listImageRepositoriesQuery,
} from '../../../shared/api/registry.js';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { ImagesService } from './images-service.js';

const UNAVAILABLE = { description: '`registry_not_configured` (SERVICE_REGISTRY_URL unset) or `registry_unavailable`' };
const NOT_FOUND = { description: '`resource_not_found`: no such repository or tag where the organization may look' };
const READ_ONLY = { description: "`shared_read_only` (the shared organization's namespace) or `forbidden` (the global namespace)" };

/** Images of the active organization's view of the platform registry (`image:view|manage`); docs/registry.md. */
export function imageRoutes(service: ImagesService): DomainRoutes {
  return {
    'GET /images/namespaces': route({
      summary:
        "The namespaces the organization sees: its own (`orgs/<slug>`), the shared organization's, and `global`, with their repository counts.",
      query: noQuery,
      responses: { 200: { description: '`items`', schema: imageNamespaceList }, 503: UNAVAILABLE },
      async handle(ctx) {
        ctx.body = await service.namespaces(activeOrg(ctx));
      },
    }),
    'GET /images/repositories': route({
      summary:
        'Repositories in the namespaces the organization sees, by name. Filters: `namespace`, `q` (name contains); `limit`, `offset`.',
      query: listImageRepositoriesQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: imageRepositoryList }, 503: UNAVAILABLE },
      async handle(ctx, { query }) {
        ctx.body = await service.repositories(activeOrg(ctx), {
          namespace: query.namespace,
          q: query.q?.trim() || undefined,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'GET /images/repository': route({
      summary: 'One repository (`?name=orgs/<slug>/…`) with its tags and the digest each names.',
      query: imageRepositoryQuery,
      responses: { 200: { description: 'The repository', schema: imageRepository }, 404: NOT_FOUND, 503: UNAVAILABLE },
      async handle(ctx, { query }) {
        ctx.body = await service.repository(activeOrg(ctx), query.name);
      },
    }),
    'DELETE /images/repository/tag': route({
      summary:
        "Delete a tag (`?name=&tag=`) in the organization's own namespace, cache copies included: its manifest goes, with every tag naming the same digest.",
      query: imageTagQuery,
      responses: { 204: { description: 'Deleted' }, 403: READ_ONLY, 404: NOT_FOUND, 503: UNAVAILABLE },
      async handle(ctx, { query }) {
        await service.deleteTag(activeOrg(ctx), query.name, query.tag, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'DELETE /images/repository': route({
      summary: "Delete a repository (`?name=`) in the organization's own namespace, cache copies included: every manifest its tags name.",
      query: imageRepositoryQuery,
      responses: { 204: { description: 'Deleted' }, 403: READ_ONLY, 404: NOT_FOUND, 503: UNAVAILABLE },
      async handle(ctx, { query }) {
        await service.deleteRepository(activeOrg(ctx), query.name, ctx.state.audit);
        ctx.status = 204;
      },
    }),
  };
}

/** The whole registry for platform admins (`image:manage_global`). */
export function platformImageRoutes(service: ImagesService): DomainRoutes {
  return {
    'DELETE /platform/images/repository/tag': route({
      summary: 'Delete a tag (`?name=&tag=`) in any namespace.',
      query: imageTagQuery,
      responses: { 204: { description: 'Deleted' }, 404: NOT_FOUND, 503: UNAVAILABLE },
      async handle(ctx, { query }) {
        await service.deleteTagAnywhere(query.name, query.tag, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'DELETE /platform/images/repository': route({
      summary: 'Delete a repository (`?name=`) in any namespace: every manifest its tags name.',
      query: imageRepositoryQuery,
      responses: { 204: { description: 'Deleted' }, 404: NOT_FOUND, 503: UNAVAILABLE },
      async handle(ctx, { query }) {
        await service.deleteRepositoryAnywhere(query.name, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'GET /platform/images/usage': route({
      summary: 'Repositories and tags per namespace across the registry, with the organization of each `orgs/<slug>` namespace.',
      query: noQuery,
      responses: { 200: { description: '`namespaces`, `repositories`, `tags`', schema: imageUsage }, 503: UNAVAILABLE },
      async handle(ctx) {
        ctx.body = await service.usage();
      },
    }),
  };
}
