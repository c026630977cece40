import {
  addableUsers,
  addableUsersQuery,
  addMemberBody,
  changeMemberBody,
  createOrgBody,
  listOrgsQuery,
  memberList,
  memberPath,
  membersQuery,
  memberView,
  ORG_IMMUTABLE,
  orgList,
  orgPath,
  orgView,
  updateOrgBody,
} from '../../../shared/api/tenancy.js';
import { noQuery } from '../../../shared/api/query.js';
import { problems } from '../../../shared/api/problems.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import type { MembersService } from './members-service.js';
import type { OrgCaller, OrgsService } from './orgs-service.js';

function caller(ctx: AppContext): OrgCaller {
  const auth = ctx.state.auth!;
  return { sub: auth.principal!.sub, platformAdmin: auth.principal!.realmRoles.includes('admin'), patOrgId: auth.pat?.orgId };
}

/** The slug is the organization's name in paths: a PATCH naming it is refused even when unchanged. */
function refuseImmutable(ctx: AppContext): void {
  const body = ctx.state.body;
  if (typeof body !== 'object' || body === null) return;
  const named = ORG_IMMUTABLE.filter((key) => key in body);
  if (named.length > 0) throw problems.validation(named.map((key) => ({ path: key, message: 'is immutable' })));
}

/**
 * Organizations (`org:list`, `org:view`, `org:manage`) and their members (`org_member:manage`). The
 * middleware has already decided who may call; the handlers narrow only where the specification says
 * (inactive organizations in the list, the organization's last admin).
 */
export function orgRoutes(deps: { orgs: OrgsService; members: MembersService }): DomainRoutes {
  const { orgs, members } = deps;
  return {
    'GET /orgs': route({
      summary:
        'Organizations visible to the caller: all for a platform admin, else those it is a member of plus the shared one; `include_inactive` (platform admins), `limit`, `offset`.',
      query: listOrgsQuery,
      responses: {
        200: { description: "`items` (each with the caller's `role`, `source`, `access`), `total`, `limit`, `offset`", schema: orgList },
      },
      async handle(ctx, { query }) {
        ctx.body = await orgs.list(caller(ctx), {
          includeInactive: query.include_inactive === 'true',
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'POST /orgs': route({
      summary: 'Create an organization (`slug` is immutable afterwards).',
      body: createOrgBody,
      responses: { 201: { description: 'The organization', schema: orgView }, 409: { description: 'The slug is taken' } },
      async handle(ctx, { body }) {
        ctx.status = 201;
        ctx.body = await orgs.create(body, ctx.state.audit);
      },
    }),
    'GET /orgs/{org_ref}': route({
      summary: 'One organization, by id or slug.',
      params: orgPath,
      query: noQuery,
      responses: { 200: { description: 'The organization', schema: orgView } },
      async handle(ctx, { params }) {
        ctx.body = await orgs.get(params.org_ref);
      },
    }),
    'PATCH /orgs/{org_ref}': route({
      summary:
        'Rename, describe, (de)activate, designate as the shared organization, replace settings. The slug is immutable; the default organization stays active.',
      params: orgPath,
      preValidation: refuseImmutable,
      body: updateOrgBody,
      responses: { 200: { description: 'The organization', schema: orgView } },
      async handle(ctx, { params, body }) {
        ctx.body = await orgs.update(params.org_ref, body, ctx.state.audit);
      },
    }),
    'DELETE /orgs/{org_ref}': route({
      summary: 'Delete an organization with everything it owns (never the default one).',
      params: orgPath,
      responses: { 204: { description: 'Deleted' } },
      async handle(ctx, { params }) {
        await orgs.remove(params.org_ref, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'GET /orgs/{org_ref}/members': route({
      summary: 'Members of the organization, by username; `limit`, `offset`.',
      params: orgPath,
      query: membersQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: memberList } },
      async handle(ctx, { params, query }) {
        ctx.body = await members.list(params.org_ref, query);
      },
    }),
    'GET /orgs/{org_ref}/addable-users': route({
      summary:
        'Active users who are not members; `q` filters on a username or e-mail prefix (an organization admin sees by prefix only users with no membership or in organizations it administers, anyone else by exact username or e-mail), `limit` (≤ 100).',
      params: orgPath,
      query: addableUsersQuery,
      responses: { 200: { description: '`items`', schema: addableUsers } },
      async handle(ctx, { params, query }) {
        ctx.body = await members.addable(params.org_ref, { prefix: query.q?.trim() || undefined, limit: query.limit }, caller(ctx));
      },
    }),
    'POST /orgs/{org_ref}/members': route({
      summary: 'Add a member (`user_id` or `username`, `role`), source `manual`.',
      params: orgPath,
      body: addMemberBody,
      responses: { 201: { description: 'The membership', schema: memberView }, 409: { description: 'Already a member' } },
      async handle(ctx, { params, body }) {
        ctx.status = 201;
        ctx.body = await members.add(params.org_ref, { userId: body.user_id, username: body.username, role: body.role }, ctx.state.audit);
      },
    }),
    'PATCH /orgs/{org_ref}/members/{user_id}': route({
      summary: "Change a member's role; an `idp` membership edited by hand becomes `manual`.",
      params: memberPath,
      body: changeMemberBody,
      responses: { 200: { description: 'The membership', schema: memberView } },
      async handle(ctx, { params, body }) {
        ctx.body = await members.changeRole(params.org_ref, params.user_id, body.role, caller(ctx), ctx.state.audit);
      },
    }),
    'DELETE /orgs/{org_ref}/members/{user_id}': route({
      summary: 'Remove a member (only a platform admin may remove the last admin).',
      params: memberPath,
      responses: { 204: { description: 'Removed' } },
      async handle(ctx, { params }) {
        await members.remove(params.org_ref, params.user_id, caller(ctx), ctx.state.audit);
        ctx.status = 204;
      },
    }),
  };
}
