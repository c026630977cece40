import {
  createFlowBody,
  draftBody,
  duplicateBody,
  flow,
  flowList,
  flowListQuery,
  flowPath,
  manualRunsBody,
  noQuery,
  pinBody,
  replaceFlowBody,
} from '../../../shared/api/flows.js';
import { answerTagged, ifMatchOf } from '../../http/entity-tag.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { flowCaller } from './caller.js';
import type { FlowsService } from './flows-service.js';
import { FLOW, ifMatchNote, narrowed, STALE, TAGGED } from './route-notes.js';

/** Flows as documents (`flow:view` reads, `flow:manage`, `flow:purge`). */
export function flowRoutes(flows: FlowsService): DomainRoutes {
  return {
    'GET /flows': route({
      summary:
        'Flows of the active organization and of the shared one (`read_only`), pinned first then by name; `q` (name contains), `pinned`, `include_deleted`, `limit`, `offset`.',
      query: flowListQuery,
      responses: { 200: { description: '`items` (without drafts), `total`, `limit`, `offset`', schema: flowList } },
      async handle(ctx, { query }) {
        ctx.body = await flows.list(flowCaller(ctx), {
          q: query.q?.trim() || undefined,
          pinned: query.pinned,
          includeDeleted: query.include_deleted ?? false,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'POST /flows': route({
      summary: `Create a flow \`{name, description?, definition?}\`; the definition (default empty) is the draft, no version yet. ${narrowed}`,
      body: createFlowBody,
      responses: {
        201: { description: 'The flow with its draft and `validation`; `ETag` its version', schema: flow },
        409: { description: 'A live flow has this name' },
      },
      async handle(ctx, { body }) {
        ctx.status = 201;
        answerTagged(
          ctx,
          await flows.create(flowCaller(ctx), {
            name: body.name,
            description: body.description,
            definition: body.definition,
          }),
        );
      },
    }),
    'GET /flows/{flow_id}': route({
      summary: 'One flow with its draft and whether the draft is committable (`validation`).',
      params: flowPath,
      query: noQuery,
      responses: { 200: TAGGED },
      async handle(ctx, { params }) {
        answerTagged(ctx, await flows.get(flowCaller(ctx), params.flow_id));
      },
    }),
    'PUT /flows/{flow_id}': route({
      summary: `Replace name, description and draft \`{name, description?, definition}\`; an incomplete graph is saved and reported in \`validation\`. ${narrowed} ${ifMatchNote}`,
      params: flowPath,
      body: replaceFlowBody,
      responses: { 200: TAGGED, 412: STALE },
      async handle(ctx, { params, body }) {
        const input = { name: body.name, description: body.description ?? null, definition: body.definition };
        answerTagged(ctx, await flows.replace(flowCaller(ctx), params.flow_id, input, ifMatchOf(ctx)));
      },
    }),
    'POST /flows/{flow_id}/draft': route({
      summary: `Save the draft only (autosave) \`{definition}\`. ${narrowed} ${ifMatchNote}`,
      params: flowPath,
      body: draftBody,
      responses: { 200: TAGGED, 412: STALE },
      async handle(ctx, { params, body }) {
        answerTagged(ctx, await flows.saveDraft(flowCaller(ctx), params.flow_id, body.definition, ifMatchOf(ctx)));
      },
    }),
    'PATCH /flows/{flow_id}/pin': route({
      summary: 'Pin or unpin `{pinned}` (pinned flows list first).',
      params: flowPath,
      body: pinBody,
      responses: { 200: FLOW },
      async handle(ctx, { params, body }) {
        ctx.body = await flows.setPinned(flowCaller(ctx), params.flow_id, body.pinned);
      },
    }),
    'PATCH /flows/{flow_id}/manual-runs': route({
      summary: 'Allow or refuse manual runs `{enabled}` (schedules and webhooks still run it).',
      params: flowPath,
      body: manualRunsBody,
      responses: { 200: FLOW },
      async handle(ctx, { params, body }) {
        ctx.body = await flows.setManualRuns(flowCaller(ctx), params.flow_id, body.enabled);
      },
    }),
    'POST /flows/{flow_id}/duplicate': route({
      summary: `Copy the draft into a new flow of the active organization \`{name?}\` (default "<name> (copy)"), without versions; works on the shared organization's flows. ${narrowed}`,
      params: flowPath,
      body: duplicateBody,
      responses: { 201: { description: 'The new flow', schema: flow }, 409: { description: 'The name is taken' } },
      async handle(ctx, { params, body }) {
        ctx.status = 201;
        ctx.body = await flows.duplicate(flowCaller(ctx), params.flow_id, body.name);
      },
    }),
    'DELETE /flows/{flow_id}': route({
      summary: 'Soft delete: hidden from lists and reads until restored.',
      params: flowPath,
      responses: { 204: { description: 'Deleted' } },
      async handle(ctx, { params }) {
        await flows.softDelete(flowCaller(ctx), params.flow_id);
        ctx.status = 204;
      },
    }),
    'POST /flows/{flow_id}/restore': route({
      summary: 'Bring a soft-deleted flow back.',
      params: flowPath,
      noBody: true,
      responses: { 200: FLOW, 409: { description: 'Not deleted, or a live flow took its name' } },
      async handle(ctx, { params }) {
        ctx.body = await flows.restore(flowCaller(ctx), params.flow_id);
      },
    }),
    'DELETE /flows/{flow_id}/permanent': route({
      summary: 'Delete for good (live or soft-deleted), with every version; runs keep their snapshot.',
      params: flowPath,
      responses: { 204: { description: 'Purged' } },
      async handle(ctx, { params }) {
        await flows.purge(flowCaller(ctx), params.flow_id);
        ctx.status = 204;
      },
    }),
  };
}
