import {
  device,
  deviceBody,
  deviceListQuery,
  devicePage,
  devicePath,
  deviceSearchIds,
  deviceSearchIdsQuery,
  deviceSearchQuery,
  overlayBody,
  type DeviceSearchFilters,
} from '../../../shared/api/devices.js';
import { duplicateBody, noQuery } from '../../../shared/api/inventory.js';
import { route } from '../../http/route.js';
import { answerTagged, ifMatchOf } from '../../http/entity-tag.js';
import type { DomainRoutes } from '../../http/types.js';
import { bulkRoutes } from './bulk-routes.js';
import type { DeviceFilter } from './device-filter.js';
import type { DevicesService } from './devices-service.js';
import { actorOf, refuseSyncOnly } from './request.js';

function filterOf(query: DeviceSearchFilters): DeviceFilter {
  return {
    q: query.q,
    textIn: 'rich',
    siteIds: query.site_id,
    platforms: query.platform,
    roles: query.role,
    tags: query.tag,
    source: query.source,
    providerId: query.provider_id,
    maintenance: query.maintenance,
  };
}

const deviceAnswer = { description: 'The device', schema: device };
const taggedDevice = { description: "The device; `ETag` its version, for a PUT's `If-Match`", schema: device };

const pageAnswer = { description: '`{items, total, limit, offset}`', schema: devicePage };
const nameTaken = { description: 'A live device already has the name (`conflict`)' };

/** Devices (`device:view`, `device:manage`, `device:annotate`, `device:purge`). A malformed `device_id` answers 404, as an unknown one does. */
export function deviceRoutes(devices: DevicesService): DomainRoutes {
  return {
    'GET /devices': route({
      summary:
        'Devices of the organization and of the shared organization: `q` (name, hostname), `site_id`, `platform`, `role`, `tag`, `include_deleted` (own soft-deleted devices too), `limit` (50, ≤500), `offset`.',
      query: deviceListQuery,
      responses: { 200: pageAnswer },
      async handle(ctx, { query }) {
        const filter: DeviceFilter = {
          q: query.q,
          siteIds: query.site_id ? [query.site_id] : undefined,
          platforms: query.platform ? [query.platform] : undefined,
          roles: query.role ? [query.role] : undefined,
          tags: query.tag ? [query.tag] : undefined,
        };
        ctx.body = await devices.list(actorOf(ctx), {
          filter,
          includeDeleted: query.include_deleted ?? false,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'GET /devices/search': route({
      summary:
        'Search live devices: `q` (name, hostname, serial, tags), repeatable `site_id`, `platform`, `role` (any of) and `tag` (all of), `source` (local|provider), `provider_id`, `maintenance`, `scope` (all|own|shared), `sort`, `limit`, `offset`.',
      query: deviceSearchQuery,
      responses: { 200: pageAnswer },
      async handle(ctx, { query }) {
        ctx.body = await devices.search(actorOf(ctx), query.scope, {
          filter: filterOf(query),
          sort: query.sort,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'GET /devices/search/ids': route({
      summary:
        'The ids of the live devices a search matches (same filters), in name order, at most SERVICE_INVENTORY_MAX_RUN_TARGETS (or `limit`): for picking run targets.',
      query: deviceSearchIdsQuery,
      responses: { 200: { description: '`{ids, total, truncated, limit}`', schema: deviceSearchIds } },
      async handle(ctx, { query }) {
        ctx.body = await devices.searchIds(actorOf(ctx), query.scope, filterOf(query), query.limit);
      },
    }),
    'GET /devices/{device_id}': route({
      summary: 'One live device of the organization or of the shared organization.',
      params: devicePath,
      query: noQuery,
      responses: { 200: taggedDevice },
      async handle(ctx, { params }) {
        answerTagged(ctx, await devices.get(actorOf(ctx), params.device_id));
      },
    }),
    'POST /devices': route({
      summary:
        'Create a device `{name, hostname?, platform?, role?, site_id?, serial?, tags?, attributes?}`; `provider_id`/`external_id` are set by provider sync only.',
      preValidation: refuseSyncOnly,
      body: deviceBody,
      responses: { 201: deviceAnswer, 409: nameTaken },
      async handle(ctx, { body }) {
        ctx.status = 201;
        ctx.body = await devices.create(actorOf(ctx), body);
      },
    }),
    'PUT /devices/{device_id}': route({
      summary:
        'Replace the editable fields (absent optional fields are cleared). A provider-sourced device refuses any change with 409 `provider_managed` (`fields`, `overlay`). With `If-Match` (the `ETag` of a GET), only the version read is replaced: another is 412 `precondition_failed`.',
      params: devicePath,
      preValidation: refuseSyncOnly,
      body: deviceBody,
      responses: {
        200: taggedDevice,
        409: { description: 'A live device already has the name (`conflict`), or the device is provider-sourced (`provider_managed`)' },
        412: {
          description:
            '`If-Match` names a version that is no longer current (`precondition_failed`, `etag` the current one); nothing changed',
        },
      },
      async handle(ctx, { params, body }) {
        answerTagged(ctx, await devices.replace(actorOf(ctx), params.device_id, body, ifMatchOf(ctx)));
      },
    }),
    'PATCH /devices/{device_id}/overlay': route({
      summary: "Set local annotations beside the device's own data: `tags` (local tags) and `maintenance` (override); `null` removes one.",
      params: devicePath,
      body: overlayBody,
      responses: { 200: deviceAnswer },
      async handle(ctx, { params, body }) {
        ctx.body = await devices.setOverlay(actorOf(ctx), params.device_id, body);
      },
    }),
    'POST /devices/{device_id}/duplicate': route({
      summary: 'Copy a device (own or shared) into the organization under a new `name`, as a local device.',
      params: devicePath,
      body: duplicateBody,
      responses: { 201: deviceAnswer, 409: nameTaken },
      async handle(ctx, { params, body }) {
        ctx.status = 201;
        ctx.body = await devices.duplicate(actorOf(ctx), params.device_id, body.name);
      },
    }),
    'DELETE /devices/{device_id}': route({
      summary: 'Soft-delete a device.',
      params: devicePath,
      responses: { 204: { description: 'Deleted' } },
      async handle(ctx, { params }) {
        await devices.remove(actorOf(ctx), params.device_id);
        ctx.status = 204;
      },
    }),
    'POST /devices/{device_id}/restore': route({
      summary: 'Restore a soft-deleted device (a live one is answered unchanged); a site no longer live is let go.',
      params: devicePath,
      noBody: true,
      responses: { 200: deviceAnswer, 409: nameTaken },
      async handle(ctx, { params }) {
        ctx.body = await devices.restore(actorOf(ctx), params.device_id);
      },
    }),
    'DELETE /devices/{device_id}/permanent': route({
      summary: 'Delete a device for good (live or soft-deleted).',
      params: devicePath,
      responses: { 204: { description: 'Purged' } },
      async handle(ctx, { params }) {
        await devices.purge(actorOf(ctx), params.device_id);
        ctx.status = 204;
      },
    }),
    ...bulkRoutes('devices', devices, '`ok`, `unchanged`, `not_found`, `shared_read_only`, `conflict`'),
  };
}
