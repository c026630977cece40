import {
  IMMUTABLE_SECRET_FIELDS,
  createSecretBody,
  discoveredSecretList,
  duplicateSecretBody,
  listSecretsQuery,
  pageQuery,
  secretDetail,
  secretList,
  secretPathParams,
  secretProviderList,
  updateSecretBody,
} from '../../../shared/api/secrets.js';
import { noQuery } from '../../../shared/api/query.js';
import { problems } from '../../../shared/api/problems.js';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import type { SecretsService } from './secrets-service.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * The body of a route that carries values, read raw and parsed here (its schema then only documents it,
 * so the handler applies it): a value must never reach a parser's message, and this parse keeps the answers
 * these routes have always given (no content type asked of an empty body, no check for lone surrogates).
 */
function valuesBody(ctx: AppContext): unknown {
  const raw = ctx.state.rawBody;
  if (raw === undefined || raw.length === 0) return {};
  if (!JSON_TYPE.test(ctx.get('content-type'))) throw problems.unsupportedMediaType();
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw problems.malformedJson();
  }
}

function refuseImmutable(raw: unknown): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return;
  const named = IMMUTABLE_SECRET_FIELDS.filter((key) => Object.hasOwn(raw, key));
  if (named.length > 0)
    throw problems.validation(
      named.map((key) => ({ path: key, message: `${key} is fixed at creation; duplicate the secret under a new name instead` })),
    );
}

const detail = {
  description: "The secret's metadata with `keys`, the key names of a live read of its folder (never values)",
  schema: secretDetail,
};
const notFound = { description: 'No such secret in the organization' };
const backendFailed = { description: 'The backend failed (`secret_backend_unavailable`, with Retry-After)' };

/** Secrets of the active organization (`secret:view`, `secret:discover`, `secret:manage`). */
export function secretRoutes(service: SecretsService): DomainRoutes {
  return {
    'GET /secrets': route({
      summary:
        "The active organization's secrets (metadata only, no backend call); `backend_id`, `name` (exact: the one secret of that name), `limit` (50, at most 500), `offset`.",
      query: listSecretsQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: secretList } },
      async handle(ctx, { query }) {
        ctx.body = await service.list(activeOrg(ctx), {
          limit: query.limit,
          offset: query.offset,
          backendId: query.backend_id,
          name: query.name,
        });
      },
    }),
    'GET /secrets/providers': route({
      summary: "The backends a secret can be created in, with the organization's reference prefix in each.",
      query: noQuery,
      responses: { 200: { description: '`items`', schema: secretProviderList } },
      async handle(ctx) {
        ctx.body = await service.providers(activeOrg(ctx));
      },
    }),
    'GET /secrets/discovered': route({
      summary:
        "Folders under the organization's prefix in the backends that no secret refers to (created outside the service); adopt one with POST /secrets naming its `path` without `values`.",
      query: pageQuery,
      responses: {
        200: { description: '`items` (`backend`, `path`, `reference`), `total`, `limit`, `offset`', schema: discoveredSecretList },
        503: backendFailed,
      },
      async handle(ctx, { query }) {
        ctx.body = await service.discovered(activeOrg(ctx), query);
      },
    }),
    'GET /secrets/{secret_id}': route({
      summary: 'One secret, with the key names of a live read through its backend.',
      params: secretPathParams,
      query: noQuery,
      responses: { 200: detail, 404: notFound, 503: backendFailed },
      async handle(ctx, { params }) {
        ctx.body = await service.get(activeOrg(ctx), params.secret_id);
      },
    }),
    'POST /secrets': route({
      summary:
        'Create a secret `{name, description?, backend_id?, path?, values?}`: `values` (key -> string) are written to the backend (the default one unless `backend_id`); `path` (default: the name) is the folder under `orgs/<org_slug>/secrets/`. Without `values`, adopts the folder already at `path`.',
      bodyMode: 'raw',
      body: createSecretBody,
      responses: {
        201: detail,
        409: { description: 'The name or the folder is taken in the organization' },
        422: { description: 'Invalid body, or `unsupported_backend_type`' },
        503: backendFailed,
      },
      async handle(ctx) {
        const input = validate(createSecretBody, valuesBody(ctx));
        ctx.status = 201;
        ctx.body = await service.create(activeOrg(ctx), input, ctx.state.audit);
      },
    }),
    'PATCH /secrets/{secret_id}': route({
      summary:
        'Change `description`; `values` set or replace the keys they name (others are kept); `remove_keys` removes keys. `name`, `path` and `backend_id` are fixed.',
      params: secretPathParams,
      bodyMode: 'raw',
      body: updateSecretBody,
      responses: { 200: detail, 404: notFound, 503: backendFailed },
      async handle(ctx, { params }) {
        const raw = valuesBody(ctx);
        refuseImmutable(raw);
        const input = validate(updateSecretBody, raw);
        ctx.body = await service.update(activeOrg(ctx), params.secret_id, input, ctx.state.audit);
      },
    }),
    'DELETE /secrets/{secret_id}': route({
      summary: 'Delete the secret and its values in the backend (no restore; webhook endpoints using it lose the link).',
      params: secretPathParams,
      responses: { 204: { description: 'Deleted' }, 404: notFound, 503: backendFailed },
      async handle(ctx, { params }) {
        await service.remove(activeOrg(ctx), params.secret_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /secrets/{secret_id}/duplicate': route({
      summary: "Copy the secret's keys and values into a new secret `{name, path?, description?}` of the same backend.",
      params: secretPathParams,
      body: duplicateSecretBody,
      responses: { 201: detail, 404: notFound, 409: { description: 'The name or the folder is taken' }, 503: backendFailed },
      async handle(ctx, { params, body }) {
        ctx.status = 201;
        ctx.body = await service.duplicate(activeOrg(ctx), params.secret_id, body, ctx.state.audit);
      },
    }),
  };
}
