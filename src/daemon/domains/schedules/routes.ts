import { noQuery, run } from '../../../shared/api/runs.js';
import {
  createScheduleBody,
  dueSchedules,
  dueSchedulesQuery,
  fireReport,
  listSchedulesQuery,
  schedule,
  scheduleList,
  schedulePath,
  triggerScheduleBody,
  updateScheduleBody,
  validateCronAnswer,
  validateCronBody,
} from '../../../shared/api/schedules.js';
import { activeOrg } from '../../http/active-org.js';
import { answerTagged, IF_MATCH_NOTE, ifMatchOf, PRECONDITION_FAILED } from '../../http/entity-tag.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { ScheduleFirer } from './schedule-firer.js';
import type { SchedulesService } from './schedules-service.js';
import { scheduleVersion } from './schedule-view.js';

const SCHEDULE = { description: 'The schedule', schema: schedule };
const TAGGED = {
  description: "The schedule; `ETag` its version (its settings, not its fire state), for a PATCH's `If-Match`",
  schema: schedule,
};
const NOT_FOUND = { description: 'No such schedule in the active organization (`resource_not_found`)' };
const BAD_CRON = {
  description:
    '`invalid_cron` (`field` names the part at fault), `unknown_timezone`, `validation_failed` (`params.<name>`, `targets.<role>`), `too_many_targets`',
};
const ADMISSION_REFUSALS = {
  400: { description: '`flow_not_committed`, `unknown_device_reference` (`missing`: a target not in this organization or the shared one)' },
  404: { description: '`flow_not_found`, `flow_version_not_found`, or no such schedule (`resource_not_found`)' },
  422: BAD_CRON,
};

/** Schedules of the active organization (`schedule:view|manage|trigger|purge`); docs/schedules.md. */
export function scheduleRoutes(service: SchedulesService): DomainRoutes {
  return {
    'POST /schedules/validate-cron': route({
      summary: 'Check a cron expression in a time zone (`UTC` unless given): its next five fire times in the zone and a description.',
      body: validateCronBody,
      responses: {
        200: { description: '`{valid, timezone, next_runs, description}`', schema: validateCronAnswer },
        422: { description: '`invalid_cron` (`field`), `unknown_timezone`' },
      },
      async handle(ctx, { body }) {
        ctx.body = service.validateCron(body.cron, body.timezone);
      },
    }),
    'GET /schedules': route({
      summary:
        'Schedules of the active organization by name. Filters: `flow_id`, `enabled`, `q` (name contains), `include_deleted`; `limit` (50, ≤ 500), `offset`.',
      query: listSchedulesQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: scheduleList } },
      async handle(ctx, { query }) {
        ctx.body = await service.list(activeOrg(ctx), {
          flowId: query.flow_id,
          enabled: query.enabled === undefined ? undefined : query.enabled === 'true',
          q: query.q?.trim() || undefined,
          includeDeleted: query.include_deleted === 'true',
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'POST /schedules': route({
      summary:
        "Create a schedule: `{name, flow_id, cron, timezone?, flow_version?, params?, targets?, enabled?, misfire_policy?}`. Params and targets are checked against the flow's committed interface as run admission checks them; nothing is stored on a refusal.",
      body: createScheduleBody,
      responses: { 201: SCHEDULE, ...ADMISSION_REFUSALS },
      async handle(ctx, { body }) {
        const created = await service.create(activeOrg(ctx), body, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/schedules/${created.id}`);
        ctx.body = created;
      },
    }),
    'GET /schedules/{schedule_id}': route({
      summary: 'One schedule, with its next and last fire time, last run and last fire error.',
      params: schedulePath,
      query: noQuery,
      responses: { 200: TAGGED, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        const found = await service.get(activeOrg(ctx), params.schedule_id);
        answerTagged(ctx, found, scheduleVersion(found));
      },
    }),
    'PATCH /schedules/{schedule_id}': route({
      summary: `Change a schedule: any create field (\`enabled: false\` pauses it). A new expression, zone or enabling computes the next fire time from now; a new flow, version, params or targets is checked again. ${IF_MATCH_NOTE} A fire is no change of the version.`,
      params: schedulePath,
      body: updateScheduleBody,
      responses: { 200: TAGGED, ...ADMISSION_REFUSALS, 412: PRECONDITION_FAILED },
      async handle(ctx, { params, body }) {
        const changed = await service.update(activeOrg(ctx), params.schedule_id, body, ctx.state.audit, ifMatchOf(ctx));
        answerTagged(ctx, changed, scheduleVersion(changed));
      },
    }),
    'DELETE /schedules/{schedule_id}': route({
      summary: 'Soft-delete a schedule: it stops firing (restorable).',
      params: schedulePath,
      responses: { 204: { description: 'Deleted' }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await service.remove(activeOrg(ctx), params.schedule_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /schedules/{schedule_id}/restore': route({
      summary: 'Restore a soft-deleted schedule; its next fire time is computed from now.',
      params: schedulePath,
      noBody: true,
      responses: { 200: SCHEDULE, 404: { description: 'No soft-deleted schedule of this id in the organization' } },
      async handle(ctx, { params }) {
        ctx.body = await service.restore(activeOrg(ctx), params.schedule_id, ctx.state.audit);
      },
    }),
    'DELETE /schedules/{schedule_id}/permanent': route({
      summary: 'Remove a schedule for good (live or soft-deleted), with its fire records; its runs stay.',
      params: schedulePath,
      responses: { 204: { description: 'Removed' }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await service.purge(activeOrg(ctx), params.schedule_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /schedules/{schedule_id}/run': route({
      summary: "Start the schedule's run now (`trigger_source=schedule`), through run admission; the next fire time is left alone.",
      params: schedulePath,
      noBody: true,
      responses: {
        201: { description: 'The run', schema: run },
        400: ADMISSION_REFUSALS[400],
        404: ADMISSION_REFUSALS[404],
        422: { description: '`validation_failed`, `too_many_targets`' },
      },
      async handle(ctx, { params }) {
        const started = await service.runNow(activeOrg(ctx), params.schedule_id, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/runs/${started.id}`);
        ctx.body = started;
      },
    }),
  };
}

/** The external scheduler's routes (`internal:scheduler`, `X-Internal-Token`): the same fires as the embedded loop. */
export function schedulerRoutes(firer: ScheduleFirer): DomainRoutes {
  return {
    'GET /internal/schedules/due': route({
      summary:
        'Enabled live schedules of active organizations whose next fire time has come, oldest first (`limit`, 50 unless given): trigger each with its `due_at`.',
      query: dueSchedulesQuery,
      responses: { 200: { description: '`{now, items: [{schedule_id, org_id, due_at, misfire_policy}]}`', schema: dueSchedules } },
      async handle(ctx, { query }) {
        ctx.body = await firer.due(query.limit);
      },
    }),
    'POST /internal/schedules/{schedule_id}/trigger': route({
      summary:
        'Fire a due schedule: `{due_at}` is its `next_fire_at` as read, the fence. Missed times follow its misfire policy; a fire admission refuses is recorded as failed and the schedule advances.',
      params: schedulePath,
      body: triggerScheduleBody,
      responses: {
        200: { description: 'What was fired, failed or skipped, and the next fire time', schema: fireReport },
        404: { description: 'No such live schedule (`resource_not_found`)' },
        409: {
          description: '`schedule_fire_stale` (not the next fire time: already fired or changed), `schedule_not_due` (`next_fire_at`)',
        },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await firer.trigger(params.schedule_id, new Date(body.due_at), ctx.state.audit);
      },
    }),
  };
}
