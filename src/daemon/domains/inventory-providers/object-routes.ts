import {
  inventoryObject,
  listObjectsQuery,
  objectList,
  objectPath,
  objectTypeCounts,
  objectTypePath,
  objectTypes,
  resolveObjectQuery,
} from '../../../shared/api/inventory-objects.js';
import { pluginList, providerTypes } from '../../../shared/api/inventory-providers.js';
import { noQuery } from '../../../shared/api/query.js';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { ObjectsService } from './objects-service.js';
import { pluginList as plugins, providerTypes as types } from './plugin-views.js';

const OBJECT = { description: 'The object', schema: inventoryObject };
const NOT_FOUND = { description: 'No such object of this type in the active organization (`resource_not_found`)' };

/** Inventory objects of the active organization (`inventory_object:view`), and the provider types. */
export function objectRoutes(objects: ObjectsService): DomainRoutes {
  return {
    'GET /inventory/provider-types': route({
      summary: 'The provider types there are (one per plugin): whether they sync incrementally, the object types they import.',
      query: noQuery,
      responses: { 200: { description: '`items`', schema: providerTypes } },
      handle(ctx) {
        ctx.body = types();
      },
    }),
    'GET /inventory/object-types': route({
      summary: 'Object types: those the plugins import and those present in the organization, with the plugins importing each.',
      query: noQuery,
      responses: { 200: { description: '`items`', schema: objectTypes } },
      async handle(ctx) {
        ctx.body = await objects.types(activeOrg(ctx).id);
      },
    }),
    'GET /inventory/object-types/counts': route({
      summary: 'Objects of the organization per type: live, and stale (gone from their provider).',
      query: noQuery,
      responses: { 200: { description: '`items`', schema: objectTypeCounts } },
      async handle(ctx) {
        ctx.body = await objects.counts(activeOrg(ctx).id);
      },
    }),
    'GET /inventory/objects/{object_type}': route({
      summary: 'Objects of a type by name. Filters: `provider_id`, `q` (name contains), `include_stale`; `limit` (50, ≤ 500), `offset`.',
      params: objectTypePath,
      query: listObjectsQuery,
      responses: {
        200: { description: '`items`, `total`, `limit`, `offset`', schema: objectList },
        404: { description: 'A malformed type' },
      },
      async handle(ctx, { params, query }) {
        ctx.body = await objects.list(activeOrg(ctx).id, params.object_type, {
          providerId: query.provider_id,
          q: query.q || undefined,
          includeStale: query.include_stale === 'true',
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'GET /inventory/objects/{object_type}/resolve': route({
      summary: 'The live object a provider reference names: `provider_id` and `external_id` (or `name`).',
      params: objectTypePath,
      query: resolveObjectQuery,
      responses: { 200: OBJECT, 404: { description: 'No live object matches (`resource_not_found`)' } },
      async handle(ctx, { params, query }) {
        ctx.body = await objects.resolve(activeOrg(ctx).id, params.object_type, {
          providerId: query.provider_id,
          externalId: query.external_id,
          name: query.name,
        });
      },
    }),
    'GET /inventory/objects/{object_type}/{object_id}': route({
      summary: 'One object (stale ones included: `stale` says so).',
      params: objectPath,
      query: noQuery,
      responses: { 200: OBJECT, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await objects.get(activeOrg(ctx).id, params.object_type, params.object_id);
      },
    }),
  };
}

/** The plugins (`plugin:view`): under inventory and under settings, the same list. */
export function pluginRoutes(): DomainRoutes {
  const answer = { 200: { description: '`items`: each plugin with its configuration schema', schema: pluginList } };
  return {
    'GET /inventory/plugins': route({
      summary: 'The inventory provider plugins, each with its configuration JSON Schema and whether it takes a credential.',
      query: noQuery,
      responses: answer,
      handle(ctx) {
        ctx.body = plugins();
      },
    }),
    'GET /settings/plugins': route({
      summary: 'The plugins of this build (today: the inventory provider plugins), each with its configuration JSON Schema.',
      query: noQuery,
      responses: answer,
      handle(ctx) {
        ctx.body = plugins();
      },
    }),
  };
}
