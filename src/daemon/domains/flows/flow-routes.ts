import type { FlowDefinition } from '../../../shared/flows/definition.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import { flowCaller, flowId } from './caller.js';
import type { FlowsService } from './flows-service.js';
import {
  createFlowBody,
  draftBody,
  duplicateBody,
  listQuery,
  manualRunsBody,
  noQuery,
  pinBody,
  replaceFlowBody,
  schema,
} from './request-schemas.js';

const body = (ctx: AppContext): unknown => ctx.state.body ?? {};
const narrowed = 'Host-access options and egress widening need the platform admin role (403 `restricted_option`).';

/** Flows as documents (`flow:view` reads, `flow:manage`, `flow:purge`). */
export function flowRoutes(flows: FlowsService): DomainRoutes {
  return {
    'GET /flows': {
      docs: {
        summary:
          'Flows of the active organization and of the shared one (`read_only`), pinned first then by name; `q` (name contains), `pinned`, `include_deleted`, `limit`, `offset`.',
        responses: { 200: { description: '`items` (without drafts), `total`, `limit`, `offset`' } },
      },
      async handle(ctx) {
        const query = validate(listQuery, ctx.query);
        ctx.body = await flows.list(flowCaller(ctx), {
          q: query.q?.trim() || undefined,
          pinned: query.pinned,
          includeDeleted: query.include_deleted ?? false,
          limit: query.limit,
          offset: query.offset,
        });
      },
    },
    'POST /flows': {
      docs: {
        summary: `Create a flow \`{name, description?, definition?}\`; the definition (default empty) is the draft, no version yet. ${narrowed}`,
        requestSchema: schema(createFlowBody),
        responses: { 201: { description: 'The flow with its draft and `validation`' }, 409: { description: 'A live flow has this name' } },
      },
      async handle(ctx) {
        const input = validate(createFlowBody, body(ctx));
        ctx.status = 201;
        ctx.body = await flows.create(flowCaller(ctx), {
          name: input.name,
          description: input.description,
          definition: input.definition as FlowDefinition | undefined,
        });
      },
    },
    'GET /flows/{flow_id}': {
      docs: {
        summary: 'One flow with its draft and whether the draft is committable (`validation`).',
        responses: { 200: { description: 'The flow' } },
      },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await flows.get(flowCaller(ctx), flowId(ctx));
      },
    },
    'PUT /flows/{flow_id}': {
      docs: {
        summary: `Replace name, description and draft \`{name, description?, definition}\`; an incomplete graph is saved and reported in \`validation\`. ${narrowed}`,
        requestSchema: schema(replaceFlowBody),
        responses: { 200: { description: 'The flow' } },
      },
      async handle(ctx) {
        const input = validate(replaceFlowBody, body(ctx));
        ctx.body = await flows.replace(flowCaller(ctx), flowId(ctx), {
          name: input.name,
          description: input.description ?? null,
          definition: input.definition as FlowDefinition,
        });
      },
    },
    'POST /flows/{flow_id}/draft': {
      docs: {
        summary: `Save the draft only (autosave) \`{definition}\`. ${narrowed}`,
        requestSchema: schema(draftBody),
        responses: { 200: { description: 'The flow' } },
      },
      async handle(ctx) {
        const input = validate(draftBody, body(ctx));
        ctx.body = await flows.saveDraft(flowCaller(ctx), flowId(ctx), input.definition as FlowDefinition);
      },
    },
    'PATCH /flows/{flow_id}/pin': {
      docs: {
        summary: 'Pin or unpin `{pinned}` (pinned flows list first).',
        requestSchema: schema(pinBody),
        responses: { 200: { description: 'The flow' } },
      },
      async handle(ctx) {
        const input = validate(pinBody, body(ctx));
        ctx.body = await flows.setPinned(flowCaller(ctx), flowId(ctx), input.pinned);
      },
    },
    'PATCH /flows/{flow_id}/manual-runs': {
      docs: {
        summary: 'Allow or refuse manual runs `{enabled}` (schedules and webhooks still run it).',
        requestSchema: schema(manualRunsBody),
        responses: { 200: { description: 'The flow' } },
      },
      async handle(ctx) {
        const input = validate(manualRunsBody, body(ctx));
        ctx.body = await flows.setManualRuns(flowCaller(ctx), flowId(ctx), input.enabled);
      },
    },
    'POST /flows/{flow_id}/duplicate': {
      docs: {
        summary: `Copy the draft into a new flow of the active organization \`{name?}\` (default "<name> (copy)"), without versions; works on the shared organization's flows. ${narrowed}`,
        requestSchema: schema(duplicateBody),
        responses: { 201: { description: 'The new flow' }, 409: { description: 'The name is taken' } },
      },
      async handle(ctx) {
        const input = validate(duplicateBody, body(ctx));
        ctx.status = 201;
        ctx.body = await flows.duplicate(flowCaller(ctx), flowId(ctx), input.name);
      },
    },
    'DELETE /flows/{flow_id}': {
      docs: { summary: 'Soft delete: hidden from lists and reads until restored.', responses: { 204: { description: 'Deleted' } } },
      async handle(ctx) {
        await flows.softDelete(flowCaller(ctx), flowId(ctx));
        ctx.status = 204;
      },
    },
    'POST /flows/{flow_id}/restore': {
      docs: {
        summary: 'Bring a soft-deleted flow back.',
        responses: { 200: { description: 'The flow' }, 409: { description: 'Not deleted, or a live flow took its name' } },
      },
      async handle(ctx) {
        ctx.body = await flows.restore(flowCaller(ctx), flowId(ctx));
      },
    },
    'DELETE /flows/{flow_id}/permanent': {
      docs: {
        summary: 'Delete for good (live or soft-deleted), with every version; runs keep their snapshot.',
        responses: { 204: { description: 'Purged' } },
      },
      async handle(ctx) {
        await flows.purge(flowCaller(ctx), flowId(ctx));
        ctx.status = 204;
      },
    },
  };
}
