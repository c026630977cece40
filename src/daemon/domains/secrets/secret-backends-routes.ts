import {
  backendItemsQuery,
  backendPathParams,
  createBackendBody,
  pageQuery,
  secretBackend,
  secretBackendItemList,
  secretBackendList,
  secretBackendTest,
  secretBackendTypeList,
  updateBackendBody,
} from '../../../shared/api/secrets.js';
import { noQuery } from '../../../shared/api/query.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { SecretBackendsService } from './secret-backends-service.js';

const one = {
  description: 'The backend: `id`, `name`, `type`, `scheme`, `config`, `is_default`, `is_builtin`, `secrets_count`, timestamps',
  schema: secretBackend,
};
const notFound = { description: 'No such backend' };

/** Secret backends, platform settings (`secret_backend:view`, `:manage`, `:test`, `:browse`). */
export function secretBackendRoutes(service: SecretBackendsService): DomainRoutes {
  return {
    'GET /settings/secret-backend-types': route({
      summary: 'The backend types, and whether this build serves each (`available`).',
      query: noQuery,
      responses: { 200: { description: '`items`', schema: secretBackendTypeList } },
      handle(ctx) {
        ctx.body = service.types();
      },
    }),
    'GET /settings/secrets-backends': route({
      summary: 'Every secret backend (the default first); `limit`, `offset`.',
      query: pageQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: secretBackendList } },
      async handle(ctx, { query }) {
        ctx.body = await service.list(query);
      },
    }),
    'GET /settings/secrets-backends/{backend_id}': route({
      summary: 'One secret backend.',
      params: backendPathParams,
      query: noQuery,
      responses: { 200: one, 404: notFound },
      async handle(ctx, { params }) {
        ctx.body = await service.get(params.backend_id);
      },
    }),
    'POST /settings/secrets-backends': route({
      summary:
        'Create a backend `{name, type, scheme, config?, is_default?}`. Only `builtin` is served by this build; `vault` answers 422 `unsupported_backend_type`.',
      body: createBackendBody,
      responses: {
        201: one,
        409: { description: 'The name or scheme is taken' },
        422: { description: 'Invalid body, or `unsupported_backend_type`' },
      },
      async handle(ctx, { body }) {
        ctx.status = 201;
        ctx.body = await service.create(body, ctx.state.audit);
      },
    }),
    'PATCH /settings/secrets-backends/{backend_id}': route({
      summary:
        'Rename, or make the default (`is_default: true`; the mark leaves the previous default). `type`, `scheme` and `config` are fixed.',
      params: backendPathParams,
      body: updateBackendBody,
      responses: {
        200: one,
        404: notFound,
        409: { description: 'Name taken, or unsetting the default' },
        422: {
          description: 'Invalid body, or making the default a backend of a type this build does not serve (`unsupported_backend_type`)',
        },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await service.update(params.backend_id, body, ctx.state.audit);
      },
    }),
    'DELETE /settings/secrets-backends/{backend_id}': route({
      summary: 'Delete a backend no secret uses (never the built-in one, nor the default).',
      params: backendPathParams,
      responses: { 204: { description: 'Deleted' }, 404: notFound, 409: { description: 'In use, built-in, or the default' } },
      async handle(ctx, { params }) {
        await service.remove(params.backend_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /settings/secrets-backends/{backend_id}/test': route({
      summary: 'Check the backend: for the built-in one, an encryption round trip and a read of the store.',
      params: backendPathParams,
      // Takes no body, and does not read one: whatever is sent is ignored.
      noBody: true,
      bodyMode: 'none',
      responses: {
        200: { description: '`{ok, detail}`; a failing backend is `ok: false`, not an error', schema: secretBackendTest },
        404: notFound,
      },
      async handle(ctx, { params }) {
        ctx.body = await service.test(params.backend_id);
      },
    }),
    'GET /settings/secrets-backends/{backend_id}/items': route({
      summary:
        'Folder locations stored in the backend, across organizations (names only, never values); `prefix` (default `orgs/`), `limit`, `offset`.',
      params: backendPathParams,
      query: backendItemsQuery,
      responses: {
        200: { description: '`items` (`location`, `org_slug`, `path`), `total`, `limit`, `offset`', schema: secretBackendItemList },
        404: notFound,
        503: { description: 'The backend failed (`secret_backend_unavailable`, with Retry-After)' },
      },
      async handle(ctx, { params, query }) {
        ctx.body = await service.items(params.backend_id, query);
      },
    }),
  };
}
