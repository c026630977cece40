import {
  applyBody,
  conflictPath,
  conflictResolution,
  drift,
  driftQuery,
  planFamilyPath,
  planPath,
  resolveBody,
  syncExport,
  syncPlan,
  syncPlanFamily,
} from '../../../shared/api/platform-sync-plans.js';
import { syncRun } from '../../../shared/api/platform-sync-runs.js';
import { profilePath } from '../../../shared/api/platform-sync.js';
import { problems } from '../../../shared/api/problems.js';
import { noQuery } from '../../../shared/api/query.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { ApplyService } from './apply-service.js';
import type { DriftService } from './drift-service.js';
import type { PlansService } from './plans-service.js';

const NO_PROFILE = { description: '`resource_not_found`: no such profile' };
const PLAN = {
  description:
    'The plan: each change with its stable `change_id`, conflict and resolution, destructive flag; the summary and rendered text',
  schema: syncPlan,
};

/** What a profile does (`platform_sync:execute`) and the reads of its plans and drift (`platform_sync:view`); docs/platform-sync.md. */
export function planRoutes(plans: PlansService, applies: ApplyService, drifts: DriftService): DomainRoutes {
  return {
    'POST /platform-sync/profiles/{profile_id}/plan': route({
      summary:
        "Read the profile's source (inline bundle, file, or the other installation's export), check it and plan it against this installation with the configuration exchange engine; the plan is saved.",
      params: profilePath,
      noBody: true,
      responses: {
        201: PLAN,
        404: NO_PROFILE,
        422: {
          description:
            '`bundle_invalid` (each error with line, column and path) or `sync_source_invalid` (the file or the token cannot be read)',
        },
        502: { description: '`sync_source_unavailable`: the other installation cannot be reached or its export failed' },
      },
      async handle(ctx, { params }) {
        const planned = await plans.plan(params.profile_id, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/platform-sync/plans/${planned.id}`);
        ctx.body = planned;
      },
    }),
    'GET /platform-sync/plans/{plan_id}': route({
      summary: 'One saved plan, with the resolutions recorded for its conflicts.',
      params: planPath,
      query: noQuery,
      responses: { 200: PLAN, 404: { description: '`resource_not_found`: no such plan' } },
      async handle(ctx, { params }) {
        ctx.body = await plans.get(params.plan_id);
      },
    }),
    'GET /platform-sync/plans/{plan_id}/families/{family}': route({
      summary: "One family's part of a plan: its changes and the keys it leaves unmanaged.",
      params: planFamilyPath,
      query: noQuery,
      responses: {
        200: { description: "The family's changes", schema: syncPlanFamily },
        404: { description: '`resource_not_found`: no such plan, or the plan does not cover the family' },
      },
      async handle(ctx, { params }) {
        ctx.body = await plans.family(params.plan_id, params.family);
      },
    }),
    'POST /platform-sync/profiles/{profile_id}/conflicts/{change_id}/resolve': route({
      summary:
        "Resolve a conflict a plan of the profile lists: `{resolution: take_source|keep_target}` (the apply writes the source's version, or leaves the target's). Audited.",
      params: conflictPath,
      body: resolveBody,
      responses: {
        200: { description: 'The recorded resolution', schema: conflictResolution },
        404: { description: '`resource_not_found`: no such profile, or no plan of it lists this change as a conflict' },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await plans.resolve(params.profile_id, params.change_id, body.resolution, ctx.state.audit);
      },
    }),
    'POST /platform-sync/profiles/{profile_id}/apply': route({
      summary:
        'Apply a saved plan of the profile `{plan_id}` through the engine, all or nothing, and record the sync run. Refused while a conflict is unresolved, without a live destructive authorization when it deletes, and when anything changed since the plan.',
      params: profilePath,
      body: applyBody,
      responses: {
        201: { description: 'The succeeded sync run', schema: syncRun },
        404: { description: '`resource_not_found`: no such profile, or the plan is not one of its' },
        409: {
          description:
            '`stale_plan` (the rows, the profile or the plan changed since: plan again), `sync_conflict` (`change_ids` unresolved), `destructive_not_authorized` (`reason`: none, expired, revoked)',
        },
      },
      async handle(ctx, { params, body }) {
        if (!ctx.state.audit) throw problems.internal();
        const run = await applies.apply(params.profile_id, body.plan_id, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/platform-sync/runs/${run.id}`);
        ctx.body = run;
      },
    }),
    'POST /platform-sync/profiles/{profile_id}/export': route({
      summary:
        "Export this installation's configuration in the profile's target scope and families as a bundle (what a peer planning from this installation would read), at once; recorded as an export run.",
      params: profilePath,
      noBody: true,
      responses: { 200: { description: 'The bundle YAML and the export run', schema: syncExport }, 404: NO_PROFILE },
      async handle(ctx, { params }) {
        ctx.body = await applies.export(params.profile_id, ctx.state.audit);
      },
    }),
    'GET /platform-sync/profiles/{profile_id}/drift': route({
      summary:
        "Items the profile's last successful apply left that changed or were deleted locally since (by their hashes recorded at apply). Filter: `family`; `limit`, `offset`.",
      params: profilePath,
      query: driftQuery,
      responses: { 200: { description: 'The drifted items', schema: drift }, 404: NO_PROFILE },
      async handle(ctx, { params, query }) {
        ctx.body = await drifts.drift(params.profile_id, query);
      },
    }),
  };
}
