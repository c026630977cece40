import { z } from 'zod';
import { DEFAULT_ORG_ROLE, ORG_ROLES } from '../../../shared/tenancy/org-roles.js';
import { problems } from '../../../shared/api/problems.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import { isUuid } from '../../../shared/ids.js';
import type { MembersService } from './members-service.js';
import type { OrgCaller, OrgsService } from './orgs-service.js';

export const MAX_PAGE = 500;
export const MAX_ADDABLE = 100;
export const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const number = (max: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/)
    .transform(Number)
    .pipe(z.number().int().min(0).max(max));
const pageShape = {
  limit: number(MAX_PAGE).pipe(z.number().min(1)).default(100),
  offset: number(1_000_000).default(0),
};

const listOrgsQuery = z.object({ ...pageShape, include_inactive: z.enum(['true', 'false']).optional() }).strict();
const membersQuery = z.object(pageShape).strict();
const addableQuery = z
  .object({ q: z.string().max(255).optional(), limit: number(MAX_ADDABLE).pipe(z.number().min(1)).default(20) })
  .strict();
const noQuery = z.object({}).strict();

const name = z.string().trim().min(1).max(255);
const description = z.string().max(10_000).nullable();
// A JSON object (not an array, not null), stored as `settings_json`.
const settings = z.record(z.string(), z.unknown());

export const createOrgSchema = z
  .object({
    slug: z
      .string()
      .min(2)
      .max(100)
      .regex(SLUG, 'lower-case letters and digits in groups joined by single hyphens')
      .refine((slug) => !isUuid(slug), 'must not be a UUID (an org_ref is an id or a slug)'),
    name,
    description: description.optional(),
    settings: settings.optional(),
  })
  .strict();

export const updateOrgSchema = z
  .object({
    name: name.optional(),
    description: description.optional(),
    is_active: z.boolean().optional(),
    is_shared: z.boolean().optional(),
    settings: settings.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'give at least one of name, description, is_active, is_shared, settings');

const role = z.enum(ORG_ROLES);

export const addMemberSchema = z
  .object({ user_id: z.uuid().optional(), username: z.string().min(1).max(255).optional(), role: role.default(DEFAULT_ORG_ROLE) })
  .strict()
  .refine((body) => (body.user_id === undefined) !== (body.username === undefined), {
    message: 'give user_id or username (one of them)',
    path: ['user_id'],
  });

export const changeMemberSchema = z.object({ role }).strict();

function caller(ctx: AppContext): OrgCaller {
  const auth = ctx.state.auth!;
  return { sub: auth.principal!.sub, platformAdmin: auth.principal!.realmRoles.includes('admin'), patOrgId: auth.pat?.orgId };
}

function orgRef(ctx: AppContext): string {
  return ctx.state.params.org_ref!;
}

function body(ctx: AppContext): unknown {
  return ctx.state.body ?? {};
}

/**
 * Organizations (`org:list`, `org:view`, `org:manage`) and their members (`org_member:manage`). The
 * middleware has already decided who may call; the handlers narrow only where the specification says
 * (inactive organizations in the list, the organization's last admin).
 */
export function orgRoutes(deps: { orgs: OrgsService; members: MembersService }): DomainRoutes {
  const { orgs, members } = deps;
  return {
    'GET /orgs': {
      docs: {
        summary:
          'Organizations visible to the caller: all for a platform admin, else those it is a member of plus the shared one; `include_inactive` (platform admins), `limit`, `offset`.',
        responses: { 200: { description: "`items` (each with the caller's `role`, `source`, `access`), `total`, `limit`, `offset`" } },
      },
      async handle(ctx) {
        const query = validate(listOrgsQuery, ctx.query);
        ctx.body = await orgs.list(caller(ctx), {
          includeInactive: query.include_inactive === 'true',
          limit: query.limit,
          offset: query.offset,
        });
      },
    },
    'POST /orgs': {
      docs: {
        summary: 'Create an organization (`slug` is immutable afterwards).',
        responses: { 201: { description: 'The organization' }, 409: { description: 'The slug is taken' } },
      },
      async handle(ctx) {
        const input = validate(createOrgSchema, body(ctx));
        ctx.status = 201;
        ctx.body = await orgs.create(input, ctx.state.audit);
      },
    },
    'GET /orgs/{org_ref}': {
      docs: { summary: 'One organization, by id or slug.', responses: { 200: { description: 'The organization' } } },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await orgs.get(orgRef(ctx));
      },
    },
    'PATCH /orgs/{org_ref}': {
      docs: {
        summary:
          'Rename, describe, (de)activate, designate as the shared organization, replace settings. The slug is immutable; the default organization stays active.',
        responses: { 200: { description: 'The organization' } },
      },
      async handle(ctx) {
        const raw = body(ctx);
        if (typeof raw === 'object' && raw !== null && 'slug' in raw)
          throw problems.validation([{ path: 'slug', message: 'is immutable' }]);
        const input = validate(updateOrgSchema, raw);
        ctx.body = await orgs.update(orgRef(ctx), input, ctx.state.audit);
      },
    },
    'DELETE /orgs/{org_ref}': {
      docs: {
        summary: 'Delete an organization with its memberships, IdP mappings and tokens (never the default one).',
        responses: { 204: { description: 'Deleted' } },
      },
      async handle(ctx) {
        await orgs.remove(orgRef(ctx), ctx.state.audit);
        ctx.status = 204;
      },
    },
    'GET /orgs/{org_ref}/members': {
      docs: {
        summary: 'Members of the organization, by username; `limit`, `offset`.',
        responses: { 200: { description: '`items`, `total`, `limit`, `offset`' } },
      },
      async handle(ctx) {
        const query = validate(membersQuery, ctx.query);
        ctx.body = await members.list(orgRef(ctx), query);
      },
    },
    'GET /orgs/{org_ref}/addable-users': {
      docs: {
        summary:
          'Active users who are not members; `q` filters on a username or e-mail prefix (an organization admin sees by prefix only users with no membership or in organizations it administers, anyone else by exact username or e-mail), `limit` (≤ 100).',
        responses: { 200: { description: '`items`' } },
      },
      async handle(ctx) {
        const query = validate(addableQuery, ctx.query);
        ctx.body = await members.addable(orgRef(ctx), { prefix: query.q?.trim() || undefined, limit: query.limit }, caller(ctx));
      },
    },
    'POST /orgs/{org_ref}/members': {
      docs: {
        summary: 'Add a member (`user_id` or `username`, `role`), source `manual`.',
        responses: { 201: { description: 'The membership' }, 409: { description: 'Already a member' } },
      },
      async handle(ctx) {
        const input = validate(addMemberSchema, body(ctx));
        ctx.status = 201;
        ctx.body = await members.add(orgRef(ctx), { userId: input.user_id, username: input.username, role: input.role }, ctx.state.audit);
      },
    },
    'PATCH /orgs/{org_ref}/members/{user_id}': {
      docs: {
        summary: "Change a member's role; an `idp` membership edited by hand becomes `manual`.",
        responses: { 200: { description: 'The membership' } },
      },
      async handle(ctx) {
        const input = validate(changeMemberSchema, body(ctx));
        ctx.body = await members.changeRole(orgRef(ctx), ctx.state.params.user_id!, input.role, caller(ctx), ctx.state.audit);
      },
    },
    'DELETE /orgs/{org_ref}/members/{user_id}': {
      docs: {
        summary: 'Remove a member (only a platform admin may remove the last admin).',
        responses: { 204: { description: 'Removed' } },
      },
      async handle(ctx) {
        await members.remove(orgRef(ctx), ctx.state.params.user_id!, caller(ctx), ctx.state.audit);
        ctx.status = 204;
      },
    },
  };
}
