import {
  templateValidation,
  validateTemplateBody,
  variableContext,
  variableContextBody,
  variableContexts,
  variableContextsQuery,
} from '../../../shared/api/variable-contexts.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { flowCaller } from '../flows/caller.js';
import type { VariableContextsService } from './variable-contexts-service.js';

const NO_FLOW = { description: 'No such flow readable here, or no such version (`resource_not_found`)' };
const BAD_POINT = { description: '`validation_failed`: `step_id` not a step of the flow, or given without `flow_id`' };

/** The editor's variable contexts (`variable_context:view`): names and types, never values; docs/variables.md. */
export function variableContextRoutes(service: VariableContextsService): DomainRoutes {
  return {
    'GET /variable-contexts': route({
      summary:
        "The namespaces a step template may name, and the organization's and the shared organization's variables by name and type (paged: `q`, `limit`, `offset`); never values.",
      query: variableContextsQuery,
      responses: { 200: { description: '`namespaces`, `variables`, `total`', schema: variableContexts } },
      async handle(ctx, { query }) {
        ctx.body = await service.overview(flowCaller(ctx), { q: query.q?.trim() || undefined, limit: query.limit, offset: query.offset });
      },
    }),
    'POST /variable-contexts': route({
      summary:
        "What a template of a flow's step may name `{flow_id?, step_id?, version?}` (the draft by default): inputs, params, targets, the outputs of steps that run before it, run vars, variables and run fields, each with its type.",
      body: variableContextBody,
      responses: { 200: { description: 'The names', schema: variableContext }, 404: NO_FLOW, 422: BAD_POINT },
      async handle(ctx, { body }) {
        ctx.body = await service.context(flowCaller(ctx), body);
      },
    }),
    'POST /variable-contexts/validate': route({
      summary:
        'Check a template text `{template, flow_id?, step_id?, version?}`: each `{{ … }}` a path the worker renders, naming something known at that point; `{valid, references, issues}` with offsets.',
      body: validateTemplateBody,
      responses: { 200: { description: '`{valid, references, issues}`', schema: templateValidation }, 404: NO_FLOW, 422: BAD_POINT },
      async handle(ctx, { body }) {
        ctx.body = await service.validate(flowCaller(ctx), body.template, body);
      },
    }),
  };
}
