import {
  authorizationPath,
  destructiveAuthorization,
  destructiveAuthorizationList,
  grantAuthorizationBody,
  listAuthorizationsQuery,
  revokeAuthorizationBody,
} from '../../../shared/api/platform-sync-runs.js';
import { profilePath } from '../../../shared/api/platform-sync.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { AuthorizationsService } from './authorizations-service.js';

const AUTHORIZATION = { description: 'The authorization with its `state` (active, expired, revoked)', schema: destructiveAuthorization };

/** A profile's destructive authorizations (`platform_sync:view`, `platform_sync:authorize_destructive`); docs/platform-sync.md. */
export function authorizationRoutes(service: AuthorizationsService): DomainRoutes {
  return {
    'GET /platform-sync/profiles/{profile_id}/destructive-authorizations': route({
      summary:
        "The profile's destructive authorizations, newest first, revoked and expired ones included. Filter: `state`; `limit`, `offset`.",
      params: profilePath,
      query: listAuthorizationsQuery,
      responses: {
        200: { description: '`items`, `total`, `limit`, `offset`', schema: destructiveAuthorizationList },
        404: { description: '`resource_not_found`: no such profile' },
      },
      async handle(ctx, { params, query }) {
        ctx.body = await service.list(params.profile_id, { state: query.state, limit: query.limit, offset: query.offset });
      },
    }),
    'POST /platform-sync/profiles/{profile_id}/destructive-authorizations': route({
      summary:
        "Authorize destructive changes (deletes by prune) of the profile's applies: `{reason, expires_in_seconds?, plan_id?}`, for one hour unless asked (at most 24), for any plan of the profile or the one named. Audited.",
      params: profilePath,
      body: grantAuthorizationBody,
      responses: {
        201: AUTHORIZATION,
        404: { description: '`resource_not_found`: no such profile' },
        422: { description: '`validation_failed`: no reason, a life out of bounds, or `plan_id` not a plan of the profile' },
      },
      async handle(ctx, { params, body }) {
        const granted = await service.grant(params.profile_id, body, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/platform-sync/profiles/${params.profile_id}/destructive-authorizations`);
        ctx.body = granted;
      },
    }),
    'POST /platform-sync/profiles/{profile_id}/destructive-authorizations/{authorization_id}/revoke': route({
      summary: 'Revoke an authorization at once: `{reason?}`. An apply after it is refused. Audited.',
      params: authorizationPath,
      body: revokeAuthorizationBody,
      responses: {
        200: AUTHORIZATION,
        404: { description: '`resource_not_found`: no such profile, or no such authorization of it' },
        409: { description: '`conflict`: revoked already' },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await service.revoke(params.profile_id, params.authorization_id, body, ctx.state.audit);
      },
    }),
  };
}
