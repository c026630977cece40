import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import { backendItemsQuery, createBackendBody, jsonSchema, noQuery, pageQuery, updateBackendBody } from './schemas.js';
import type { SecretBackendsService } from './secret-backends-service.js';

function backendId(ctx: AppContext): string {
  return ctx.state.params.backend_id!;
}

const one = {
  description: 'The backend: `id`, `name`, `type`, `scheme`, `config`, `is_default`, `is_builtin`, `secrets_count`, timestamps',
};

/** Secret backends, platform settings (`secret_backend:view`, `:manage`, `:test`, `:browse`). */
export function secretBackendRoutes(service: SecretBackendsService): DomainRoutes {
  return {
    'GET /settings/secret-backend-types': {
      docs: {
        summary: 'The backend types, and whether this build serves each (`available`).',
        responses: { 200: { description: '`items`' } },
      },
      handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = service.types();
      },
    },
    'GET /settings/secrets-backends': {
      docs: {
        summary: 'Every secret backend (the default first); `limit`, `offset`.',
        responses: { 200: { description: '`items`, `total`, `limit`, `offset`' } },
      },
      async handle(ctx) {
        ctx.body = await service.list(validate(pageQuery, ctx.query));
      },
    },
    'GET /settings/secrets-backends/{backend_id}': {
      docs: { summary: 'One secret backend.', responses: { 200: one, 404: { description: 'No such backend' } } },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await service.get(backendId(ctx));
      },
    },
    'POST /settings/secrets-backends': {
      docs: {
        summary:
          'Create a backend `{name, type, scheme, config?, is_default?}`. Only `builtin` is served by this build; `vault` answers 422 `unsupported_backend_type`.',
        requestSchema: jsonSchema(createBackendBody),
        responses: {
          201: one,
          409: { description: 'The name or scheme is taken' },
          422: { description: 'Invalid body, or `unsupported_backend_type`' },
        },
      },
      async handle(ctx) {
        const input = validate(createBackendBody, ctx.state.body ?? {});
        ctx.status = 201;
        ctx.body = await service.create(input, ctx.state.audit);
      },
    },
    'PATCH /settings/secrets-backends/{backend_id}': {
      docs: {
        summary:
          'Rename, or make the default (`is_default: true`; the mark leaves the previous default). `type`, `scheme` and `config` are fixed.',
        requestSchema: jsonSchema(updateBackendBody),
        responses: { 200: one, 409: { description: 'Name taken, or unsetting the default' } },
      },
      async handle(ctx) {
        const input = validate(updateBackendBody, ctx.state.body ?? {});
        ctx.body = await service.update(backendId(ctx), input, ctx.state.audit);
      },
    },
    'DELETE /settings/secrets-backends/{backend_id}': {
      docs: {
        summary: 'Delete a backend no secret uses (never the built-in one, nor the default).',
        responses: { 204: { description: 'Deleted' }, 409: { description: 'In use, built-in, or the default' } },
      },
      async handle(ctx) {
        await service.remove(backendId(ctx), ctx.state.audit);
        ctx.status = 204;
      },
    },
    'POST /settings/secrets-backends/{backend_id}/test': {
      docs: {
        summary: 'Check the backend: for the built-in one, an encryption round trip and a read of the store.',
        responses: { 200: { description: '`{ok, detail}`' } },
      },
      body: 'none',
      async handle(ctx) {
        ctx.body = await service.test(backendId(ctx));
      },
    },
    'GET /settings/secrets-backends/{backend_id}/items': {
      docs: {
        summary:
          'Folder locations stored in the backend, across organizations (names only, never values); `prefix` (default `orgs/`), `limit`, `offset`.',
        responses: {
          200: { description: '`items` (`location`, `org_slug`, `path`), `total`, `limit`, `offset`' },
          503: { description: 'The backend failed' },
        },
      },
      async handle(ctx) {
        ctx.body = await service.items(backendId(ctx), validate(backendItemsQuery, ctx.query));
      },
    },
  };
}
