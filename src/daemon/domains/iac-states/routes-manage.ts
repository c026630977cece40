import {
  iacState,
  iacStateList,
  iacStatePath,
  iacStateVersion,
  iacStateVersionList,
  iacStateVersionPath,
  listIacStatesQuery,
  listIacStateVersionsQuery,
  rollbackBody,
  stateDocument,
} from '../../../shared/api/iac-states.js';
import { noQuery } from '../../../shared/api/query.js';
import { activeOrg } from '../../http/active-org.js';
import { requestHeader } from '../../http/request-header.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { IacStatesService } from './iac-states-service.js';
import { actorFor } from './routes-backend.js';

const NOT_FOUND = { description: 'No such state in the active organization (`resource_not_found`)' };
const LOCKED = { description: "`iac_state_locked`: the state is locked; the holder's lock info in the body" };

/** The states' routes beside the backend: listing and reading them, import, rollback, force-unlock, delete. */
export function manageRoutes(service: IacStatesService, maxStateBytes: number): DomainRoutes {
  return {
    'GET /iac-states': route({
      summary: "The active organization's states: names, newest version, serial, size, digest, lock holder; never a state document.",
      query: listIacStatesQuery,
      responses: { 200: { description: 'A page of states', schema: iacStateList } },
      async handle(ctx, { query }) {
        ctx.body = await service.list(activeOrg(ctx).id, query.q, { limit: query.limit, offset: query.offset });
      },
    }),
    'GET /iac-states/{name}': route({
      summary: 'One state: newest version, serial, lineage, size, digest, lock holder; never the document.',
      params: iacStatePath,
      query: noQuery,
      responses: { 200: { description: 'The state', schema: iacState }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.get(activeOrg(ctx).id, params.name);
      },
    }),
    'GET /iac-states/{name}/versions': route({
      summary: "A state's versions, newest first: serial, lineage, size, SHA-256, source, who wrote it; never the documents.",
      params: iacStatePath,
      query: listIacStateVersionsQuery,
      responses: { 200: { description: 'A page of versions', schema: iacStateVersionList }, 404: NOT_FOUND },
      async handle(ctx, { params, query }) {
        ctx.body = await service.versions(activeOrg(ctx).id, params.name, { limit: query.limit, offset: query.offset });
      },
    }),
    'GET /iac-states/{name}/versions/{version}/content': route({
      summary: 'The document of one version, as written.',
      params: iacStateVersionPath,
      query: noQuery,
      responses: { 200: { description: 'The state document', schema: stateDocument }, 404: { description: 'No such state or version' } },
      async handle(ctx, { params }) {
        ctx.type = 'application/json';
        ctx.body = await service.content(activeOrg(ctx).id, params.name, params.version);
      },
    }),
    'POST /iac-states/{name}/import': route({
      summary:
        'Imports a state document as a new version (Bearer only; `Content-MD5` checked when sent); refused while the state is locked.',
      params: iacStatePath,
      query: noQuery,
      body: stateDocument,
      bodyMode: 'raw',
      maxBodyBytes: maxStateBytes,
      responses: {
        201: { description: 'The version written', schema: iacStateVersion },
        400: { description: '`content_md5_mismatch`' },
        413: { description: '`payload_too_large`' },
        422: { description: '`invalid_state_document`' },
        423: LOCKED,
      },
      async handle(ctx, { params }) {
        const raw = ctx.state.rawBody ?? Buffer.alloc(0);
        const md5 = requestHeader(ctx, 'content-md5') || undefined;
        ctx.status = 201;
        ctx.body = await service.import(activeOrg(ctx).id, params.name, raw, md5, actorFor(ctx, params.name), ctx.state.audit);
      },
    }),
    'POST /iac-states/{name}/rollback': route({
      summary: "Writes a new version holding an earlier version's document `{version}`; refused while the state is locked.",
      params: iacStatePath,
      body: rollbackBody,
      responses: {
        201: { description: 'The version written', schema: iacStateVersion },
        404: { description: 'No such state or version' },
        423: LOCKED,
      },
      async handle(ctx, { params, body }) {
        ctx.status = 201;
        ctx.body = await service.rollback(activeOrg(ctx).id, params.name, body.version, actorFor(ctx, params.name), ctx.state.audit);
      },
    }),
    'POST /iac-states/{name}/force-unlock': route({
      summary: 'Removes whatever lock the state holds (audited with the lock it removed).',
      params: iacStatePath,
      noBody: true,
      responses: { 200: { description: 'The state, unlocked', schema: iacState }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.forceUnlock(activeOrg(ctx).id, params.name, 'iac_state:manage', ctx.state.audit);
      },
    }),
    'DELETE /iac-states/{name}': route({
      summary: 'Deletes the state and all its versions (no restore); refused while it is locked.',
      params: iacStatePath,
      responses: { 204: { description: 'Deleted' }, 404: NOT_FOUND, 423: LOCKED },
      async handle(ctx, { params }) {
        await service.delete(activeOrg(ctx).id, params.name, ctx.state.audit);
        ctx.status = 204;
      },
    }),
  };
}
