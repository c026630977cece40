import { problems } from '../../../shared/api/problems.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import {
  IMMUTABLE_SECRET_FIELDS,
  createSecretBody,
  duplicateSecretBody,
  jsonSchema,
  listSecretsQuery,
  noQuery,
  pageQuery,
  updateSecretBody,
} from './schemas.js';
import type { OrgRef, SecretsService } from './secrets-service.js';

function activeOrg(ctx: AppContext): OrgRef {
  const org = ctx.state.org;
  if (!org) throw problems.resourceNotFound('Organization');
  return org;
}

function body(ctx: AppContext): unknown {
  return ctx.state.body ?? {};
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * The body of a route that carries values, read raw and parsed here: the shared JSON step puts the
 * parser's message in its answer, and V8's message quotes the text around the error, which here would
 * be part of a secret value.
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

const detail = { description: "The secret's metadata with `keys`, the key names of a live read of its folder (never values)" };

/** Secrets of the active organization (`secret:view`, `secret:discover`, `secret:manage`). */
export function secretRoutes(service: SecretsService): DomainRoutes {
  return {
    'GET /secrets': {
      docs: {
        summary: "The active organization's secrets (metadata only, no backend call); `backend_id`, `limit` (50, at most 500), `offset`.",
        responses: { 200: { description: '`items`, `total`, `limit`, `offset`' } },
      },
      async handle(ctx) {
        const query = validate(listSecretsQuery, ctx.query);
        ctx.body = await service.list(activeOrg(ctx), { limit: query.limit, offset: query.offset, backendId: query.backend_id });
      },
    },
    'GET /secrets/providers': {
      docs: {
        summary: "The backends a secret can be created in, with the organization's reference prefix in each.",
        responses: { 200: { description: '`items`' } },
      },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await service.providers(activeOrg(ctx));
      },
    },
    'GET /secrets/discovered': {
      docs: {
        summary:
          "Folders under the organization's prefix in the backends that no secret refers to (created outside the service); adopt one with POST /secrets naming its `path` without `values`.",
        responses: {
          200: { description: '`items` (`backend`, `path`, `reference`), `total`, `limit`, `offset`' },
          503: { description: 'A backend failed' },
        },
      },
      async handle(ctx) {
        const query = validate(pageQuery, ctx.query);
        ctx.body = await service.discovered(activeOrg(ctx), query);
      },
    },
    'GET /secrets/{secret_id}': {
      docs: {
        summary: 'One secret, with the key names of a live read through its backend.',
        responses: { 200: detail, 404: { description: 'No such secret in the organization' }, 503: { description: 'The backend failed' } },
      },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await service.get(activeOrg(ctx), ctx.state.params.secret_id!);
      },
    },
    'POST /secrets': {
      docs: {
        summary:
          'Create a secret `{name, description?, backend_id?, path?, values?}`: `values` (key -> string) are written to the backend (the default one unless `backend_id`); `path` (default: the name) is the folder under `orgs/<org_slug>/secrets/`. Without `values`, adopts the folder already at `path`.',
        requestSchema: jsonSchema(createSecretBody),
        responses: {
          201: detail,
          409: { description: 'The name or the folder is taken in the organization' },
          422: { description: 'Invalid body, or `unsupported_backend_type`' },
        },
      },
      body: 'raw',
      async handle(ctx) {
        const input = validate(createSecretBody, valuesBody(ctx));
        ctx.status = 201;
        ctx.body = await service.create(activeOrg(ctx), input, ctx.state.audit);
      },
    },
    'PATCH /secrets/{secret_id}': {
      docs: {
        summary:
          'Change `description`; `values` set or replace the keys they name (others are kept); `remove_keys` removes keys. `name`, `path` and `backend_id` are fixed.',
        requestSchema: jsonSchema(updateSecretBody),
        responses: { 200: detail, 404: { description: 'No such secret in the organization' } },
      },
      body: 'raw',
      async handle(ctx) {
        const raw = valuesBody(ctx);
        refuseImmutable(raw);
        const input = validate(updateSecretBody, raw);
        ctx.body = await service.update(activeOrg(ctx), ctx.state.params.secret_id!, input, ctx.state.audit);
      },
    },
    'DELETE /secrets/{secret_id}': {
      docs: {
        summary: 'Delete the secret and its values in the backend (no restore; webhook endpoints using it lose the link).',
        responses: { 204: { description: 'Deleted' }, 404: { description: 'No such secret in the organization' } },
      },
      async handle(ctx) {
        await service.remove(activeOrg(ctx), ctx.state.params.secret_id!, ctx.state.audit);
        ctx.status = 204;
      },
    },
    'POST /secrets/{secret_id}/duplicate': {
      docs: {
        summary: "Copy the secret's keys and values into a new secret `{name, path?, description?}` of the same backend.",
        requestSchema: jsonSchema(duplicateSecretBody),
        responses: { 201: detail, 409: { description: 'The name or the folder is taken' } },
      },
      async handle(ctx) {
        const input = validate(duplicateSecretBody, body(ctx));
        ctx.status = 201;
        ctx.body = await service.duplicate(activeOrg(ctx), ctx.state.params.secret_id!, input, ctx.state.audit);
      },
    },
  };
}
