import {
  noQuery,
  renameRunBody,
  run,
  runFilterOptions,
  runList,
  runListQuery,
  runPath,
  triggerRunBody,
  triggerRunQuery,
} from '../../../shared/api/runs.js';
import { problem } from '../../../shared/api/problem.js';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import type { RunsService } from './runs-service.js';

function isPlatformAdmin(ctx: AppContext): boolean {
  return ctx.state.auth?.principal?.realmRoles.includes('admin') ?? false;
}

/**
 * `?force=true` is for platform admins only: refused before the body is looked at, once the query itself
 * is valid (an invalid query stays a 422, as the query's schema answers it next). Handler-level
 * narrowing: not reallocatable by overrides, and refused whatever the flow's switch says.
 */
function refuseForceUnlessAdmin(ctx: AppContext): void {
  const query = triggerRunQuery.safeParse(ctx.query);
  if (query.success && query.data.force === 'true' && !isPlatformAdmin(ctx)) {
    throw problem('restricted_option', 'Only a platform admin may force a manual run.', { restriction: 'force_manual_run' });
  }
}

const RUN = { description: 'The run', schema: run };
const NOT_FOUND = { description: 'No such run in the active organization (`resource_not_found`)' };
const BAD_STATE = { description: "The run's status does not allow it (`invalid_run_state`)" };

/**
 * Runs of the active organization: `run:trigger`, `run:control`, `run:purge`, and of `run:view` the
 * list, the read and the filter options (artifacts, monitors and events come with the workers).
 */
export function runRoutes(service: RunsService): DomainRoutes {
  return {
    'POST /runs': route({
      summary:
        "Start a run of a committed flow version: `{flow_id, version?, params?, targets?, name?}`. Refused with 409 `manual_runs_disabled` when the flow's manual runs are off, unless `?force=true` (platform admins only: 403 `restricted_option` for anyone else).",
      query: triggerRunQuery,
      preValidation: refuseForceUnlessAdmin,
      body: triggerRunBody,
      responses: {
        201: RUN,
        400: { description: '`flow_not_committed`, `unknown_device_reference` (`missing`)' },
        403: { description: '`restricted_option` (`restriction: force_manual_run`)' },
        404: { description: '`flow_not_found`, `flow_version_not_found`' },
        409: { description: '`manual_runs_disabled`' },
        422: { description: '`validation_failed` (`params.<name>`, `targets.<role>`), `too_many_targets`' },
      },
      async handle(ctx, { query, body }) {
        const created = await service.trigger(activeOrg(ctx), body, { force: query.force === 'true' }, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/runs/${created.id}`);
        ctx.body = created;
      },
    }),
    'GET /runs': route({
      summary:
        'Runs of the active organization, newest first. Filters: `status` and `trigger_source` (comma-separated or repeated), `flow_id`, `created_after` (inclusive), `created_before` (exclusive), `q` (name contains), `include_deleted`; `limit` (50, ≤ 500), `offset`.',
      query: runListQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: runList } },
      async handle(ctx, { query }) {
        ctx.body = await service.list(activeOrg(ctx), {
          statuses: query.status,
          flowId: query.flow_id,
          triggerSources: query.trigger_source,
          createdAfter: query.created_after,
          createdBefore: query.created_before,
          q: query.q?.trim() || undefined,
          includeDeleted: query.include_deleted === 'true',
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'GET /runs/filter-options': route({
      summary:
        "The values the organization's live runs hold, for list filters: `flows` (`id`, newest `name`), `statuses`, `trigger_sources`.",
      query: noQuery,
      responses: { 200: { description: '`{flows, statuses, trigger_sources}`', schema: runFilterOptions } },
      async handle(ctx) {
        ctx.body = await service.filterOptions(activeOrg(ctx));
      },
    }),
    'GET /runs/{run_id}': route({
      summary: 'One run of the active organization.',
      params: runPath,
      query: noQuery,
      responses: { 200: RUN, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.get(activeOrg(ctx), params.run_id);
      },
    }),
    'PATCH /runs/{run_id}': route({
      summary: 'Rename a run: `{name}`.',
      params: runPath,
      body: renameRunBody,
      responses: { 200: RUN, 404: NOT_FOUND },
      async handle(ctx, { params, body }) {
        ctx.body = await service.rename(activeOrg(ctx), params.run_id, body.name, ctx.state.audit);
      },
    }),
    'POST /runs/{run_id}/cancel': route({
      summary: 'Cancel a queued, running, paused or awaiting_approval run (its pending approval is cancelled with it).',
      params: runPath,
      noBody: true,
      responses: { 200: RUN, 404: NOT_FOUND, 409: BAD_STATE },
      async handle(ctx, { params }) {
        ctx.body = await service.command(activeOrg(ctx), params.run_id, 'cancel', ctx.state.audit);
      },
    }),
    'POST /runs/{run_id}/pause': route({
      summary: 'Pause a queued (held, not dispatched) or running run.',
      params: runPath,
      noBody: true,
      responses: { 200: RUN, 404: NOT_FOUND, 409: BAD_STATE },
      async handle(ctx, { params }) {
        ctx.body = await service.command(activeOrg(ctx), params.run_id, 'pause', ctx.state.audit);
      },
    }),
    'POST /runs/{run_id}/resume': route({
      summary: 'Resume a paused run: back to `running` if a worker had started it, else `queued`.',
      params: runPath,
      noBody: true,
      responses: { 200: RUN, 404: NOT_FOUND, 409: BAD_STATE },
      async handle(ctx, { params }) {
        ctx.body = await service.command(activeOrg(ctx), params.run_id, 'resume', ctx.state.audit);
      },
    }),
    'DELETE /runs/{run_id}': route({
      summary: 'Soft-delete a finished run (hidden from lists and reads until restored).',
      params: runPath,
      responses: { 204: { description: 'Deleted' }, 404: NOT_FOUND, 409: BAD_STATE },
      async handle(ctx, { params }) {
        await service.remove(activeOrg(ctx), params.run_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /runs/{run_id}/restore': route({
      summary: 'Restore a soft-deleted run.',
      params: runPath,
      noBody: true,
      responses: { 200: RUN, 404: NOT_FOUND, 409: { description: 'The run is not deleted (`conflict`)' } },
      async handle(ctx, { params }) {
        ctx.body = await service.restore(activeOrg(ctx), params.run_id, ctx.state.audit);
      },
    }),
    'DELETE /runs/{run_id}/permanent': route({
      summary: 'Erase a finished run, live or soft-deleted (irreversible).',
      params: runPath,
      responses: { 204: { description: 'Purged' }, 404: NOT_FOUND, 409: BAD_STATE },
      async handle(ctx, { params }) {
        await service.purge(activeOrg(ctx), params.run_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
  };
}
