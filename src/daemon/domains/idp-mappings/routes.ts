import {
  createIdpMappingBody,
  IDP_MAPPING_IMMUTABLE,
  idpMapping,
  idpMappingPath,
  idpMappingsAnswer,
  idpMappingsQuery,
  updateIdpMappingBody,
} from '../../../shared/api/idp-mappings.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import type { IdpMappingsService } from './idp-mappings-service.js';

/** The spec asks creation to name the organization twice: in the path and in `X-Org-Id` (a mismatch is refused earlier). */
function requireOrgHeader(ctx: AppContext): void {
  if (ctx.get('x-org-id') === '') {
    throw problem('org_header_required', 'Send X-Org-Id naming the organization of the path.');
  }
}

/** `claim` and `value` are the mapping's identity: a PATCH naming them is refused even when unchanged. */
function refuseImmutable(ctx: AppContext): void {
  const body = ctx.state.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const named = IDP_MAPPING_IMMUTABLE.filter((key) => Object.hasOwn(body, key));
  if (named.length > 0) {
    throw problems.validation(
      named.map((key) => ({ path: key, message: `${key} is immutable after creation; create a new mapping and delete this one` })),
    );
  }
}

/** IdP mappings of the organization `{org_ref}` (`org_idp_mapping:manage`, policy org_admin). */
export function idpMappingRoutes(service: IdpMappingsService): DomainRoutes {
  return {
    'GET /orgs/{org_ref}/idp-mappings': route({
      summary:
        "List the organization's mappings (`?active=true|false`); or, with `?preview_user=<username>&groups=<value>&groups=…`, what a login of that user carrying those claim values would change.",
      query: idpMappingsQuery,
      responses: {
        200: { description: '`items`, or the preview `{user, claim, authoritative, changes, hidden_changes}`', schema: idpMappingsAnswer },
      },
      async handle(ctx, { query }) {
        const org = activeOrg(ctx);
        if (query.preview_user !== undefined) {
          const principal = ctx.state.auth!.principal!;
          ctx.body = await service.preview(query.preview_user, query.groups ?? [], {
            platformAdmin: principal.realmRoles.includes('admin'),
            sub: principal.sub,
            onlyOrgId: ctx.state.auth?.pat?.orgId,
          });
          return;
        }
        ctx.body = { items: await service.list(org, { active: query.active === undefined ? undefined : query.active === 'true' }) };
      },
    }),
    'POST /orgs/{org_ref}/idp-mappings': route({
      summary: 'Create a mapping `{claim, value, role, is_active?}`; requires `X-Org-Id` naming the organization.',
      preValidation: requireOrgHeader,
      body: createIdpMappingBody,
      responses: { 201: { description: 'The mapping', schema: idpMapping } },
      async handle(ctx, { body }) {
        const org = activeOrg(ctx);
        ctx.status = 201;
        ctx.body = await service.create(
          org,
          { claim: body.claim, value: body.value, role: body.role, is_active: body.is_active ?? true },
          ctx.state.audit,
        );
      },
    }),
    'PATCH /orgs/{org_ref}/idp-mappings/{mapping_id}': route({
      summary: "Change a mapping's `role` and/or `is_active`; `claim` and `value` are immutable.",
      params: idpMappingPath,
      preValidation: refuseImmutable,
      body: updateIdpMappingBody,
      responses: { 200: { description: 'The mapping', schema: idpMapping } },
      async handle(ctx, { params, body }) {
        ctx.body = await service.update(activeOrg(ctx), params.mapping_id, body, ctx.state.audit);
      },
    }),
    'DELETE /orgs/{org_ref}/idp-mappings/{mapping_id}': route({
      summary: "Delete a mapping (takes effect at the users' next login).",
      params: idpMappingPath,
      responses: { 204: { description: 'Deleted' } },
      async handle(ctx, { params }) {
        await service.remove(activeOrg(ctx), params.mapping_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
  };
}
