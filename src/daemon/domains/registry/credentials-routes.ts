import { noQuery } from '../../../shared/api/query.js';
import {
  createRegistryCredentialBody,
  listRegistryCredentialsQuery,
  registryCredential,
  registryCredentialList,
  registryCredentialPath,
  registryCredentialTest,
  updateRegistryCredentialBody,
} from '../../../shared/api/registry.js';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { RegistryCredentialsService } from './credentials-service.js';

const CREDENTIAL = { description: 'The credential (the password as its secret reference)', schema: registryCredential };
const NOT_FOUND = { description: 'No such credential in the active organization (`resource_not_found`)' };
const BAD_REFERENCE = { description: '`validation_failed`: `password_ref` is not a secret reference of the organization' };

/** Logins to upstream registries of the active organization (`registry_credential:view|manage|test`); docs/registry.md. */
export function registryCredentialRoutes(service: RegistryCredentialsService): DomainRoutes {
  return {
    'GET /registry-credentials': route({
      summary:
        'Registry credentials of the active organization by registry. Filters: `registry`, `q` (registry contains); `limit`, `offset`.',
      query: listRegistryCredentialsQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: registryCredentialList } },
      async handle(ctx, { query }) {
        ctx.body = await service.list(activeOrg(ctx), {
          registry: query.registry,
          q: query.q?.trim() || undefined,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'POST /registry-credentials': route({
      summary:
        'Add a login to an upstream registry: `{registry, url?, username, password_ref, description?}`. The password only as a secret reference; one credential per registry.',
      body: createRegistryCredentialBody,
      responses: {
        201: CREDENTIAL,
        409: { description: '`conflict`: the organization has a credential for this registry' },
        422: BAD_REFERENCE,
      },
      async handle(ctx, { body }) {
        const created = await service.create(activeOrg(ctx), body, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/registry-credentials/${created.id}`);
        ctx.body = created;
      },
    }),
    'GET /registry-credentials/{credential_id}': route({
      summary: 'One registry credential, with the outcome of its last test.',
      params: registryCredentialPath,
      query: noQuery,
      responses: { 200: CREDENTIAL, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.get(activeOrg(ctx), params.credential_id);
      },
    }),
    'PATCH /registry-credentials/{credential_id}': route({
      summary: "Change a credential's `url`, `username`, `password_ref` or `description`; `registry` is its identity.",
      params: registryCredentialPath,
      body: updateRegistryCredentialBody,
      responses: { 200: CREDENTIAL, 404: NOT_FOUND, 422: BAD_REFERENCE },
      async handle(ctx, { params, body }) {
        ctx.body = await service.update(activeOrg(ctx), params.credential_id, body, ctx.state.audit);
      },
    }),
    'DELETE /registry-credentials/{credential_id}': route({
      summary: 'Remove a registry credential (the secret it references stays).',
      params: registryCredentialPath,
      responses: { 204: { description: 'Removed' }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await service.remove(activeOrg(ctx), params.credential_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /registry-credentials/{credential_id}/test': route({
      summary:
        "Log in to the upstream for real (`GET /v2/`, then Basic or its token service), through the outbound guard: `{ok, outcome, http_status, detail}`. The upstream's refusal is an answer, not an error.",
      params: registryCredentialPath,
      noBody: true,
      responses: {
        200: { description: '`ok` and the `outcome`', schema: registryCredentialTest },
        404: NOT_FOUND,
        503: { description: '`secret_backend_unavailable`' },
      },
      async handle(ctx, { params }) {
        ctx.body = await service.test(activeOrg(ctx), params.credential_id, ctx.state.audit);
      },
    }),
  };
}
