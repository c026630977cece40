import { noQuery } from '../../../shared/api/query.js';
import {
  createVariableBody,
  internalVariables,
  internalVariablesQuery,
  listVariablesQuery,
  updateVariableBody,
  variable,
  variableList,
  variablePath,
} from '../../../shared/api/variables.js';
import { answerTagged, IF_MATCH_NOTE, ifMatchOf, PRECONDITION_FAILED } from '../../http/entity-tag.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { actorOf } from '../inventory/request.js';
import { holderOf } from '../run-callbacks/fence.js';
import type { RunVariables } from './run-variables.js';
import type { VariablesService } from './variables-service.js';

const VARIABLE = { description: 'The variable', schema: variable };
const TAGGED = { description: "The variable; `ETag` its version, for a PATCH's `If-Match`", schema: variable };
const NOT_FOUND = { description: 'No such variable readable here (`resource_not_found`)' };
const SHARED = { description: "The shared organization's variable (`shared_read_only`)" };
const BAD_VALUE = { description: '`validation_failed`: a name breaking the rule, a value not of its type (path `value`)' };
const NAME_TAKEN = { description: 'A live variable of the organization has this name (`conflict`)' };

/** Variables of the active organization and the shared one (`variable:view|manage|purge`); docs/variables.md. */
export function variableRoutes(service: VariablesService): DomainRoutes {
  return {
    'GET /variables': route({
      summary:
        "Variables of the active organization and the shared one, by name. Filters: `q` (name contains), `type`, `include_deleted` (the active organization's); `limit` (50, ≤ 500), `offset`.",
      query: listVariablesQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: variableList } },
      async handle(ctx, { query }) {
        ctx.body = await service.list(actorOf(ctx), {
          q: query.q?.trim() || undefined,
          type: query.type,
          includeDeleted: query.include_deleted === 'true',
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'POST /variables': route({
      summary:
        'Create a variable: `{name, type: string|number|boolean|json|secret_ref, value, description?}`. A `secret_ref` holds a secret reference, never a value.',
      body: createVariableBody,
      responses: { 201: VARIABLE, 409: NAME_TAKEN, 422: BAD_VALUE },
      async handle(ctx, { body }) {
        const created = await service.create(actorOf(ctx), body);
        ctx.status = 201;
        ctx.set('Location', `/variables/${created.id}`);
        ctx.body = created;
      },
    }),
    'GET /variables/{variable_id}': route({
      summary: 'One live variable of the active organization or the shared one.',
      params: variablePath,
      query: noQuery,
      responses: { 200: TAGGED, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        answerTagged(ctx, await service.get(actorOf(ctx), params.variable_id));
      },
    }),
    'PATCH /variables/{variable_id}': route({
      summary: `Change \`name\`, \`type\`, \`value\` and/or \`description\`; a new type needs a value of it. Audited with each field before and after. ${IF_MATCH_NOTE}`,
      params: variablePath,
      body: updateVariableBody,
      responses: { 200: TAGGED, 403: SHARED, 404: NOT_FOUND, 409: NAME_TAKEN, 412: PRECONDITION_FAILED, 422: BAD_VALUE },
      async handle(ctx, { params, body }) {
        answerTagged(ctx, await service.update(actorOf(ctx), params.variable_id, body, ifMatchOf(ctx)));
      },
    }),
    'DELETE /variables/{variable_id}': route({
      summary: 'Soft-delete a variable: runs no longer get it (restorable).',
      params: variablePath,
      responses: { 204: { description: 'Deleted' }, 403: SHARED, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await service.remove(actorOf(ctx), params.variable_id);
        ctx.status = 204;
      },
    }),
    'POST /variables/{variable_id}/restore': route({
      summary: 'Restore a soft-deleted variable (a live one is answered unchanged); 409 when a live one took its name.',
      params: variablePath,
      noBody: true,
      responses: { 200: VARIABLE, 403: SHARED, 404: NOT_FOUND, 409: NAME_TAKEN },
      async handle(ctx, { params }) {
        ctx.body = await service.restore(actorOf(ctx), params.variable_id);
      },
    }),
    'DELETE /variables/{variable_id}/permanent': route({
      summary: 'Remove a variable for good, live or soft-deleted; its audit entries stay.',
      params: variablePath,
      responses: { 204: { description: 'Removed' }, 403: SHARED, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await service.purge(actorOf(ctx), params.variable_id);
        ctx.status = 204;
      },
    }),
  };
}

/** The worker's read of a run's variables (`internal:resolve`, `X-Internal-Token`, fenced by the run's holder). */
export function internalVariableRoutes(runVariables: RunVariables): DomainRoutes {
  return {
    'GET /internal/variables': route({
      summary:
        "The variables of the run the caller holds (`run_id`; headers `X-Worker-Id`, `X-Run-Attempt`): its organization's over the shared one's, `secret_ref` ones resolved to the secret's value.",
      query: internalVariablesQuery,
      responses: {
        200: { description: '`{run_id, org_id, variables, secret_names, unresolved}`', schema: internalVariables },
        404: { description: 'No such run (`resource_not_found`)' },
        409: { description: '`run_not_held` (another worker or attempt), `invalid_run_state` (not running or paused)' },
        422: { description: '`validation_failed`: `run_id` missing, a fencing header missing or malformed' },
      },
      async handle(ctx, { query }) {
        ctx.body = await runVariables.forRun(query.run_id, holderOf(ctx.req.headers));
      },
    }),
  };
}
