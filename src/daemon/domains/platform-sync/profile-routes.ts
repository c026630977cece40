import { noQuery } from '../../../shared/api/query.js';
import {
  createProfileBody,
  listProfilesQuery,
  profilePath,
  syncProfile,
  syncProfileList,
  updateProfileBody,
} from '../../../shared/api/platform-sync.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { ProfilesService } from './profiles-service.js';

const PROFILE = { description: 'The profile (an installation token only as its secret reference)', schema: syncProfile };
const NOT_FOUND = { description: '`resource_not_found`: no such profile' };
const INVALID = {
  description:
    '`validation_failed`: a field breaks its schema, the target organization does not exist, a family is not of the target scope, or `token_ref` is no secret reference of the home organization',
};

/** Platform sync profiles (`platform_sync:view|manage`), platform admins only; docs/platform-sync.md. */
export function profileRoutes(service: ProfilesService): DomainRoutes {
  return {
    'GET /platform-sync/profiles': route({
      summary: 'Sync profiles by name. Filters: `q` (name contains), `source_kind`, `target_org` (slug); `limit`, `offset`.',
      query: listProfilesQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: syncProfileList } },
      async handle(ctx, { query }) {
        ctx.body = await service.list({
          q: query.q?.trim() || undefined,
          sourceKind: query.source_kind,
          targetOrg: query.target_org,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'POST /platform-sync/profiles': route({
      summary:
        'Make a profile: `{name, description?, source, target, families?, prune?}`. `source` is `{kind: bundle, bundle}`, `{kind: file, file_id}` or `{kind: installation, base_url, token_ref, org?}`; `target` is `{scope: org, org}` or `{scope: platform}`. Prune is off unless asked.',
      body: createProfileBody,
      responses: { 201: PROFILE, 409: { description: '`conflict`: a profile has this name' }, 422: INVALID },
      async handle(ctx, { body }) {
        const created = await service.create(body, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/platform-sync/profiles/${created.id}`);
        ctx.body = created;
      },
    }),
    'GET /platform-sync/profiles/{profile_id}': route({
      summary: 'One sync profile.',
      params: profilePath,
      query: noQuery,
      responses: { 200: PROFILE, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.get(params.profile_id);
      },
    }),
    'PATCH /platform-sync/profiles/{profile_id}': route({
      summary: "Change a profile's fields; its `revision` grows by one, so plans made before are stale.",
      params: profilePath,
      body: updateProfileBody,
      responses: { 200: PROFILE, 404: NOT_FOUND, 409: { description: '`conflict`: a profile has this name' }, 422: INVALID },
      async handle(ctx, { params, body }) {
        ctx.body = await service.update(params.profile_id, body, ctx.state.audit);
      },
    }),
    'DELETE /platform-sync/profiles/{profile_id}': route({
      summary: 'Remove a profile with its plans, destructive authorizations and run history (the audit log keeps the record).',
      params: profilePath,
      responses: { 204: { description: 'Removed' }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await service.remove(params.profile_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
  };
}
