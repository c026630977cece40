import {
  bundleJsonSchema,
  createOperationBody,
  operation,
  operationAccepted,
  operationPath,
  projection,
  projectionQuery,
  resourceFamilies,
} from '../../../shared/api/config-exchange.js';
import { noQuery } from '../../../shared/api/query.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import type { Caller, ConfigExchangeService } from './config-exchange-service.js';

const NOT_FOUND = { description: 'No such operation (`resource_not_found`)' };
const OPERATION = { description: 'The operation', schema: operation };

function callerOf(ctx: AppContext): Caller {
  const principal = ctx.state.auth?.principal;
  return { sub: principal?.sub ?? null, username: principal?.username ?? null, audit: ctx.state.audit };
}

/** Configuration exchange (`config_exchange:view|execute`, platform admins); docs/config-exchange.md. */
export function configExchangeRoutes(service: ConfigExchangeService): DomainRoutes {
  return {
    'GET /config-exchange/resource-families': route({
      summary: 'The resource families a bundle may hold, in apply order: scope (`org` or `platform`), dependencies, fields.',
      query: noQuery,
      responses: { 200: { description: '`items`', schema: resourceFamilies } },
      handle(ctx) {
        ctx.body = service.families();
      },
    }),
    'GET /config-exchange/schema': route({
      summary: "JSON Schema of a bundle document (made from the families' own schemas), for editors and CI checks.",
      query: noQuery,
      responses: { 200: { description: 'JSON Schema (draft 2020-12)', schema: bundleJsonSchema } },
      handle(ctx) {
        ctx.body = service.schema();
      },
    }),
    'GET /config-exchange/projection': route({
      summary:
        'What an export would write now, as the bundle document in JSON, with the fingerprint of the rows read; synchronous, for UIs. `org` adds the organization families; `families` (comma-separated) narrows.',
      query: projectionQuery,
      responses: {
        200: { description: '`{org, families, bundle, fingerprint}`', schema: projection },
        404: { description: 'No such organization (`resource_not_found`)' },
        422: { description: '`validation_failed`: an unknown family, an organization family without `org`' },
      },
      async handle(ctx, { query }) {
        ctx.body = await service.projection(query);
      },
    }),
    'POST /config-exchange/operations': route({
      summary:
        'Queue an export (`org?`, `families?`), a plan (`bundle` YAML, `org?`, `families?`, `prune?`) or an apply (`plan_id`); any instance runs it. Poll `GET …/operations/{correlation_id}` for progress and result.',
      body: createOperationBody,
      responses: {
        202: { description: '`{correlation_id, status: queued}`', schema: operationAccepted },
        404: { description: '`resource_not_found`: the organization or the plan' },
        409: { description: '`stale_plan` (the rows changed since the plan), `plan_not_applicable` (not a succeeded plan)' },
        422: { description: '`bundle_invalid` (each error with `path`, `line`, `column`), `validation_failed`' },
      },
      async handle(ctx, { body }) {
        const accepted = await service.create(callerOf(ctx), body);
        ctx.status = 202;
        ctx.set('Location', `/config-exchange/operations/${accepted.correlation_id}`);
        ctx.body = accepted;
      },
    }),
    'GET /config-exchange/operations/{correlation_id}': route({
      summary:
        'An operation: status (`queued|running|succeeded|failed|cancelled`), progress, result (export YAML, plan, applied changes), error (a problem).',
      params: operationPath,
      query: noQuery,
      responses: { 200: OPERATION, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.get(params.correlation_id);
      },
    }),
    'POST /config-exchange/operations/{correlation_id}/cancel': route({
      summary: 'Cancel an operation: a queued one at once; a running one stops before its apply commits. A finished one answers 409.',
      params: operationPath,
      noBody: true,
      responses: { 200: OPERATION, 404: NOT_FOUND, 409: { description: '`operation_finished`' } },
      async handle(ctx, { params }) {
        ctx.body = await service.cancel(callerOf(ctx), params.correlation_id);
      },
    }),
  };
}
