import { z } from 'zod';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import { DEVICE_SORTS, type DeviceFilter } from './device-filter.js';
import type { DevicesService } from './devices-service.js';
import {
  bulkBody,
  flag,
  hostname,
  jsonSchema,
  label,
  name,
  noQuery,
  page,
  refuseSyncOnly,
  repeated,
  searchText,
  tags,
  uuid,
} from './fields.js';
import { actorOf, bodyOf } from './request.js';

/** POST and PUT take the same body: PUT replaces every editable field (absent optional ones are cleared). */
export const deviceBody = z
  .object({
    name,
    hostname: hostname.nullable().optional(),
    platform: label(100).nullable().optional(),
    role: label(100).nullable().optional(),
    site_id: uuid.nullable().optional(),
    serial: label(255).nullable().optional(),
    tags: tags.optional(),
    attributes: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const overlayBody = z
  .object({ tags: tags.nullable().optional(), maintenance: z.boolean().nullable().optional() })
  .strict()
  .refine((body) => body.tags !== undefined || body.maintenance !== undefined, 'give tags and/or maintenance');

export const duplicateBody = z.object({ name }).strict();

const listQuery = z
  .object({
    q: searchText.optional(),
    site_id: uuid.optional(),
    platform: label(100).optional(),
    role: label(100).optional(),
    tag: label(100).optional(),
    include_deleted: flag.optional(),
    ...page,
  })
  .strict();

const searchFilters = {
  q: searchText.optional(),
  site_id: repeated(uuid).optional(),
  platform: repeated(label(100)).optional(),
  role: repeated(label(100)).optional(),
  tag: repeated(label(100)).optional(),
  source: z.enum(['local', 'provider']).optional(),
  provider_id: label(255).optional(),
  maintenance: flag.optional(),
  scope: z.enum(['all', 'own', 'shared']).default('all'),
};

const searchQuery = z.object({ ...searchFilters, sort: z.enum(DEVICE_SORTS).optional(), ...page }).strict();

const searchIdsQuery = z
  .object({
    ...searchFilters,
    limit: z
      .string()
      .regex(/^\d{1,7}$/)
      .transform(Number)
      .pipe(z.number().int().min(1))
      .optional(),
  })
  .strict();

function filterOf(query: z.output<z.ZodObject<typeof searchFilters>>): DeviceFilter {
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

function deviceId(ctx: AppContext): string {
  return ctx.state.params.device_id!;
}

const deviceResponse = {
  description:
    'The device: `{id, org_id, shared, name, hostname, platform, role, site_id, serial, tags, attributes, overlay: {tags, maintenance}, provider_id, external_id, provider_managed, created_*, updated_*, deleted_*}`',
};
const pageResponse = { description: '`{items, total, limit, offset}`' };
const bulkResponse = {
  description: '`{results: [{id, status}]}`, one per distinct id: `ok`, `unchanged`, `not_found`, `shared_read_only`, `conflict`',
};

/** Devices (`device:view`, `device:manage`, `device:annotate`, `device:purge`). */
export function deviceRoutes(devices: DevicesService): DomainRoutes {
  return {
    'GET /devices': {
      docs: {
        summary:
          'Devices of the organization and of the shared organization: `q` (name, hostname), `site_id`, `platform`, `role`, `tag`, `include_deleted` (own soft-deleted devices too), `limit` (50, ≤500), `offset`.',
        responses: { 200: pageResponse },
      },
      async handle(ctx) {
        const query = validate(listQuery, ctx.query);
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
    },
    'GET /devices/search': {
      docs: {
        summary:
          'Search live devices: `q` (name, hostname, serial, tags), repeatable `site_id`, `platform`, `role` (any of) and `tag` (all of), `source` (local|provider), `provider_id`, `maintenance`, `scope` (all|own|shared), `sort`, `limit`, `offset`.',
        responses: { 200: pageResponse },
      },
      async handle(ctx) {
        const query = validate(searchQuery, ctx.query);
        ctx.body = await devices.search(actorOf(ctx), query.scope, {
          filter: filterOf(query),
          sort: query.sort,
          limit: query.limit,
          offset: query.offset,
        });
      },
    },
    'GET /devices/search/ids': {
      docs: {
        summary:
          'The ids of the live devices a search matches (same filters), in name order, at most SERVICE_INVENTORY_MAX_RUN_TARGETS (or `limit`): for picking run targets.',
        responses: { 200: { description: '`{ids, total, truncated, limit}`' } },
      },
      async handle(ctx) {
        const query = validate(searchIdsQuery, ctx.query);
        ctx.body = await devices.searchIds(actorOf(ctx), query.scope, filterOf(query), query.limit);
      },
    },
    'GET /devices/{device_id}': {
      docs: { summary: 'One live device of the organization or of the shared organization.', responses: { 200: deviceResponse } },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await devices.get(actorOf(ctx), deviceId(ctx));
      },
    },
    'POST /devices': {
      docs: {
        summary:
          'Create a device `{name, hostname?, platform?, role?, site_id?, serial?, tags?, attributes?}`; `provider_id`/`external_id` are set by provider sync only.',
        requestSchema: jsonSchema(deviceBody),
        responses: { 201: deviceResponse, 409: { description: 'A live device already has the name (`conflict`)' } },
      },
      async handle(ctx) {
        refuseSyncOnly(bodyOf(ctx));
        const body = validate(deviceBody, bodyOf(ctx));
        ctx.status = 201;
        ctx.body = await devices.create(actorOf(ctx), body);
      },
    },
    'PUT /devices/{device_id}': {
      docs: {
        summary:
          'Replace the editable fields (absent optional fields are cleared). A provider-sourced device refuses any change with 409 `provider_managed` (`fields`, `overlay`).',
        requestSchema: jsonSchema(deviceBody),
        responses: { 200: deviceResponse },
      },
      async handle(ctx) {
        refuseSyncOnly(bodyOf(ctx));
        const body = validate(deviceBody, bodyOf(ctx));
        ctx.body = await devices.replace(actorOf(ctx), deviceId(ctx), body);
      },
    },
    'PATCH /devices/{device_id}/overlay': {
      docs: {
        summary:
          "Set local annotations beside the device's own data: `tags` (local tags) and `maintenance` (override); `null` removes one.",
        requestSchema: jsonSchema(overlayBody),
        responses: { 200: deviceResponse },
      },
      async handle(ctx) {
        const body = validate(overlayBody, bodyOf(ctx));
        ctx.body = await devices.setOverlay(actorOf(ctx), deviceId(ctx), body);
      },
    },
    'POST /devices/{device_id}/duplicate': {
      docs: {
        summary: 'Copy a device (own or shared) into the organization under a new `name`, as a local device.',
        requestSchema: jsonSchema(duplicateBody),
        responses: { 201: deviceResponse },
      },
      async handle(ctx) {
        const body = validate(duplicateBody, bodyOf(ctx));
        ctx.status = 201;
        ctx.body = await devices.duplicate(actorOf(ctx), deviceId(ctx), body.name);
      },
    },
    'DELETE /devices/{device_id}': {
      docs: { summary: 'Soft-delete a device.', responses: { 204: { description: 'Deleted' } } },
      async handle(ctx) {
        await devices.remove(actorOf(ctx), deviceId(ctx));
        ctx.status = 204;
      },
    },
    'POST /devices/{device_id}/restore': {
      docs: {
        summary: 'Restore a soft-deleted device (a live one is answered unchanged); a site no longer live is let go.',
        responses: { 200: deviceResponse },
      },
      async handle(ctx) {
        ctx.body = await devices.restore(actorOf(ctx), deviceId(ctx));
      },
    },
    'DELETE /devices/{device_id}/permanent': {
      docs: { summary: 'Delete a device for good (live or soft-deleted).', responses: { 204: { description: 'Purged' } } },
      async handle(ctx) {
        await devices.purge(actorOf(ctx), deviceId(ctx));
        ctx.status = 204;
      },
    },
    'POST /devices/bulk/delete': {
      docs: {
        summary: 'Soft-delete up to 1000 devices `{ids}` in one transaction.',
        requestSchema: jsonSchema(bulkBody),
        responses: { 200: bulkResponse },
      },
      async handle(ctx) {
        ctx.body = await devices.bulkDelete(actorOf(ctx), validate(bulkBody, bodyOf(ctx)).ids);
      },
    },
    'POST /devices/bulk/restore': {
      docs: {
        summary: 'Restore up to 1000 devices `{ids}` in one transaction.',
        requestSchema: jsonSchema(bulkBody),
        responses: { 200: bulkResponse },
      },
      async handle(ctx) {
        ctx.body = await devices.bulkRestore(actorOf(ctx), validate(bulkBody, bodyOf(ctx)).ids);
      },
    },
    'POST /devices/bulk/permanent': {
      docs: {
        summary: 'Delete up to 1000 devices `{ids}` for good in one transaction.',
        requestSchema: jsonSchema(bulkBody),
        responses: { 200: bulkResponse },
      },
      async handle(ctx) {
        ctx.body = await devices.bulkPurge(actorOf(ctx), validate(bulkBody, bodyOf(ctx)).ids);
      },
    },
  };
}
