import { z } from 'zod';
import { ORG_ROLES } from '../../../shared/tenancy/org-roles.js';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import type { IdpMappingsService, OrgRef } from './idp-mappings-service.js';

export const MAX_VALUE_CHARS = 1024;
export const MAX_PREVIEW_VALUES = 1000;

/**
 * A claim value exactly as the provider emits it: no trimming, no case folding. Length counts
 * characters as the database does (code points), and NUL, which PostgreSQL text cannot hold, is refused.
 */
const claimValue = z
  .string()
  .min(1)
  .refine((v) => [...v].length <= MAX_VALUE_CHARS, { message: `must be at most ${MAX_VALUE_CHARS} characters` })
  .refine((v) => !v.includes('\u0000'), { message: 'must not contain NUL' });

const roleSchema = z.enum(ORG_ROLES);

export const createMappingBody = z
  .object({
    claim: z.string().min(1).max(255),
    value: claimValue,
    role: roleSchema,
    is_active: z.boolean().optional(),
  })
  .strict();

export const updateMappingBody = z
  .object({ role: roleSchema.optional(), is_active: z.boolean().optional() })
  .strict()
  .refine((b) => b.role !== undefined || b.is_active !== undefined, { message: 'give role or is_active' });

const listQuery = z.object({ active: z.enum(['true', 'false']).optional() }).strict();

const previewQuery = z
  .object({
    preview_user: z.string().min(1).max(255),
    // Repeated: `?groups=/Net&groups=Ops`; absent is a login carrying no value.
    groups: z
      .union([claimValue, z.array(claimValue)])
      .transform((v) => [v].flat())
      .pipe(z.array(z.string()).max(MAX_PREVIEW_VALUES))
      .optional(),
  })
  .strict();

const IMMUTABLE = ['claim', 'value'] as const;

function activeOrg(ctx: AppContext): OrgRef {
  const org = ctx.state.org;
  if (!org) throw problems.resourceNotFound('Organization');
  return org;
}

/** The spec asks creation to name the organization twice: in the path and in `X-Org-Id` (a mismatch is refused earlier). */
function requireOrgHeader(ctx: AppContext): void {
  if (ctx.get('x-org-id') === '') {
    throw problem('org_header_required', 'Send X-Org-Id naming the organization of the path.');
  }
}

/** `claim` and `value` are the mapping's identity: a PATCH naming them is refused even when unchanged. */
function refuseImmutable(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const named = IMMUTABLE.filter((key) => Object.hasOwn(body, key));
  if (named.length > 0) {
    throw problems.validation(
      named.map((key) => ({ path: key, message: `${key} is immutable after creation; create a new mapping and delete this one` })),
    );
  }
}

/** IdP mappings of the organization `{org_ref}` (`org_idp_mapping:manage`, policy org_admin). */
export function idpMappingRoutes(service: IdpMappingsService): DomainRoutes {
  return {
    'GET /orgs/{org_ref}/idp-mappings': {
      docs: {
        summary:
          "List the organization's mappings (`?active=true|false`); or, with `?preview_user=<username>&groups=<value>&groups=…`, what a login of that user carrying those claim values would change.",
        responses: { 200: { description: '`items`, or the preview `{user, claim, authoritative, changes, hidden_changes}`' } },
      },
      async handle(ctx) {
        const org = activeOrg(ctx);
        if (ctx.query.preview_user !== undefined) {
          const query = validate(previewQuery, ctx.query);
          const principal = ctx.state.auth!.principal!;
          ctx.body = await service.preview(query.preview_user, query.groups ?? [], {
            platformAdmin: principal.realmRoles.includes('admin'),
            sub: principal.sub,
            onlyOrgId: ctx.state.auth?.pat?.orgId,
          });
          return;
        }
        const query = validate(listQuery, ctx.query);
        ctx.body = { items: await service.list(org, { active: query.active === undefined ? undefined : query.active === 'true' }) };
      },
    },
    'POST /orgs/{org_ref}/idp-mappings': {
      docs: {
        summary: 'Create a mapping `{claim, value, role, is_active?}`; requires `X-Org-Id` naming the organization.',
        responses: { 201: { description: 'The mapping' } },
      },
      async handle(ctx) {
        const org = activeOrg(ctx);
        requireOrgHeader(ctx);
        const body = validate(createMappingBody, ctx.state.body ?? {});
        ctx.status = 201;
        ctx.body = await service.create(
          org,
          { claim: body.claim, value: body.value, role: body.role, is_active: body.is_active ?? true },
          ctx.state.audit,
        );
      },
    },
    'PATCH /orgs/{org_ref}/idp-mappings/{mapping_id}': {
      docs: {
        summary: "Change a mapping's `role` and/or `is_active`; `claim` and `value` are immutable.",
        responses: { 200: { description: 'The mapping' } },
      },
      async handle(ctx) {
        const org = activeOrg(ctx);
        refuseImmutable(ctx.state.body);
        const body = validate(updateMappingBody, ctx.state.body ?? {});
        ctx.body = await service.update(org, ctx.state.params.mapping_id!, body, ctx.state.audit);
      },
    },
    'DELETE /orgs/{org_ref}/idp-mappings/{mapping_id}': {
      docs: { summary: "Delete a mapping (takes effect at the users' next login).", responses: { 204: { description: 'Deleted' } } },
      async handle(ctx) {
        const org = activeOrg(ctx);
        await service.remove(org, ctx.state.params.mapping_id!, ctx.state.audit);
        ctx.status = 204;
      },
    },
  };
}
