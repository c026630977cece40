import { z } from 'zod';
import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import { listQuery, noQuery, renameBody, triggerBody, triggerQuery } from './run-schemas.js';
import type { OrgRef, RunsService } from './runs-service.js';

function activeOrg(ctx: AppContext): OrgRef {
  const org = ctx.state.org;
  if (!org) throw problems.resourceNotFound('Organization');
  return org;
}

function runId(ctx: AppContext): string {
  return ctx.state.params.run_id!;
}

function isPlatformAdmin(ctx: AppContext): boolean {
  return ctx.state.auth?.principal?.realmRoles.includes('admin') ?? false;
}

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
const RUN = { description: 'The run' };
const NOT_FOUND = { description: 'No such run in the active organization (`resource_not_found`)' };
const BAD_STATE = { description: "The run's status does not allow it (`invalid_run_state`)" };

/**
 * Runs of the active organization: `run:trigger`, `run:control`, `run:purge`, and of `run:view` the
 * list, the read and the filter options (artifacts, monitors and events come with the workers).
 */
export function runRoutes(service: RunsService): DomainRoutes {
  return {
    'POST /runs': {
      docs: {
        summary:
          "Start a run of a committed flow version: `{flow_id, version?, params?, targets?, name?}`. Refused with 409 `manual_runs_disabled` when the flow's manual runs are off, unless `?force=true` (platform admins only: 403 `restricted_option` for anyone else).",
        requestSchema: schema(triggerBody),
        responses: {
          201: RUN,
          400: { description: '`flow_not_committed`, `unknown_device_reference` (`missing`)' },
          403: { description: '`restricted_option` (`restriction: force_manual_run`)' },
          404: { description: '`flow_not_found`, `flow_version_not_found`' },
          409: { description: '`manual_runs_disabled`' },
          422: { description: '`validation_failed` (`params.<name>`, `targets.<role>`), `too_many_targets`' },
        },
      },
      async handle(ctx) {
        const org = activeOrg(ctx);
        const query = validate(triggerQuery, ctx.query);
        const force = query.force === 'true';
        // Handler-level narrowing: not reallocatable by overrides, and refused whatever the flow's switch says.
        if (force && !isPlatformAdmin(ctx)) {
          throw problem('restricted_option', 'Only a platform admin may force a manual run.', { restriction: 'force_manual_run' });
        }
        const body = validate(triggerBody, ctx.state.body ?? {});
        const run = await service.trigger(org, body, { force }, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/runs/${run.id}`);
        ctx.body = run;
      },
    },
    'GET /runs': {
      docs: {
        summary:
          'Runs of the active organization, newest first. Filters: `status` and `trigger_source` (comma-separated or repeated), `flow_id`, `created_after` (inclusive), `created_before` (exclusive), `q` (name contains), `include_deleted`; `limit` (50, ≤ 500), `offset`.',
        responses: { 200: { description: '`items`, `total`, `limit`, `offset`' } },
      },
      async handle(ctx) {
        const org = activeOrg(ctx);
        const query = validate(listQuery, ctx.query);
        ctx.body = await service.list(org, {
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
    },
    'GET /runs/filter-options': {
      docs: {
        summary:
          "The values the organization's live runs hold, for list filters: `flows` (`id`, newest `name`), `statuses`, `trigger_sources`.",
        responses: { 200: { description: '`{flows, statuses, trigger_sources}`' } },
      },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await service.filterOptions(activeOrg(ctx));
      },
    },
    'GET /runs/{run_id}': {
      docs: { summary: 'One run of the active organization.', responses: { 200: RUN, 404: NOT_FOUND } },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await service.get(activeOrg(ctx), runId(ctx));
      },
    },
    'PATCH /runs/{run_id}': {
      docs: { summary: 'Rename a run: `{name}`.', requestSchema: schema(renameBody), responses: { 200: RUN, 404: NOT_FOUND } },
      async handle(ctx) {
        const body = validate(renameBody, ctx.state.body ?? {});
        ctx.body = await service.rename(activeOrg(ctx), runId(ctx), body.name, ctx.state.audit);
      },
    },
    'POST /runs/{run_id}/cancel': {
      docs: { summary: 'Cancel a queued, running or paused run.', responses: { 200: RUN, 404: NOT_FOUND, 409: BAD_STATE } },
      async handle(ctx) {
        ctx.body = await service.command(activeOrg(ctx), runId(ctx), 'cancel', ctx.state.audit);
      },
    },
    'POST /runs/{run_id}/pause': {
      docs: { summary: 'Pause a queued (held, not dispatched) or running run.', responses: { 200: RUN, 404: NOT_FOUND, 409: BAD_STATE } },
      async handle(ctx) {
        ctx.body = await service.command(activeOrg(ctx), runId(ctx), 'pause', ctx.state.audit);
      },
    },
    'POST /runs/{run_id}/resume': {
      docs: {
        summary: 'Resume a paused run: back to `running` if a worker had started it, else `queued`.',
        responses: { 200: RUN, 404: NOT_FOUND, 409: BAD_STATE },
      },
      async handle(ctx) {
        ctx.body = await service.command(activeOrg(ctx), runId(ctx), 'resume', ctx.state.audit);
      },
    },
    'DELETE /runs/{run_id}': {
      docs: {
        summary: 'Soft-delete a finished run (hidden from lists and reads until restored).',
        responses: { 204: { description: 'Deleted' }, 404: NOT_FOUND, 409: BAD_STATE },
      },
      async handle(ctx) {
        await service.remove(activeOrg(ctx), runId(ctx), ctx.state.audit);
        ctx.status = 204;
      },
    },
    'POST /runs/{run_id}/restore': {
      docs: {
        summary: 'Restore a soft-deleted run.',
        responses: { 200: RUN, 404: NOT_FOUND, 409: { description: 'The run is not deleted (`conflict`)' } },
      },
      async handle(ctx) {
        ctx.body = await service.restore(activeOrg(ctx), runId(ctx), ctx.state.audit);
      },
    },
    'DELETE /runs/{run_id}/permanent': {
      docs: {
        summary: 'Erase a finished run, live or soft-deleted (irreversible).',
        responses: { 204: { description: 'Purged' }, 404: NOT_FOUND, 409: BAD_STATE },
      },
      async handle(ctx) {
        await service.purge(activeOrg(ctx), runId(ctx), ctx.state.audit);
        ctx.status = 204;
      },
    },
  };
}
