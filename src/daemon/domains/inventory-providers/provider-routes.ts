import {
  connectionReport,
  createProviderBody,
  discovery,
  listProvidersQuery,
  provider,
  providerInventory,
  providerList,
  providerPath,
  syncBody,
  syncHistory,
  syncHistoryQuery,
  syncRun,
} from '../../../shared/api/inventory-providers.js';
import { updateProviderBody } from '../../../shared/api/inventory-providers.js';
import { noQuery } from '../../../shared/api/query.js';
import { z } from 'zod';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { ProvidersService } from './providers-service.js';
import type { SyncService } from './sync-service.js';

const PROVIDER = { description: 'The provider (its credential as the reference, never a value)', schema: provider };
const NOT_FOUND = { description: 'No such live provider in the active organization (`resource_not_found`)' };
const BAD_CONFIG = {
  description:
    '`unknown_provider_type` (`types`), `invalid_provider_url` (`field`), `provider_id_mismatch` (`expected`), `invalid_provider_config` (`errors`, with `line`/`column` in a YAML document), `validation_failed` (`credential_ref` that does not resolve)',
};
const UPSTREAM = {
  description:
    '`provider_request_failed`: the provider could not be asked or answered an error; `reason` (`auth_failed`, `upstream_status`, `timeout`, `address_not_allowed`, `connect_failed`, `malformed_answer`, `credential_unusable`)',
};
const purged = z.object({ removed: z.record(z.string(), z.number().int()) });

/** Inventory providers of the active organization (`inventory_provider:*`); docs/inventory-providers.md. */
export function providerRoutes(providers: ProvidersService, syncs: SyncService): DomainRoutes {
  return {
    'GET /inventory/providers': route({
      summary: 'Providers of the active organization by provider id. Filters: `type`, `include_deleted`; `limit` (50, ≤ 500), `offset`.',
      query: listProvidersQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: providerList } },
      async handle(ctx, { query }) {
        ctx.body = await providers.list(activeOrg(ctx), {
          type: query.type,
          includeDeleted: query.include_deleted === 'true',
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'POST /inventory/providers': route({
      summary:
        "Create a provider: `{type, name, config, credential_ref?, description?, enabled?, provider_id?}`. Its id is `<type>:<name>` in the default organization, `<type>:<name>:<org_id>` elsewhere; the configuration is checked by the type's plugin and the credential reference resolved once (its value never stored).",
      body: createProviderBody,
      responses: { 201: PROVIDER, 409: { description: 'A live provider has this id (`conflict`)' }, 422: BAD_CONFIG },
      async handle(ctx, { body }) {
        const created = await providers.create(activeOrg(ctx), body, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/inventory/providers/${encodeURIComponent(created.provider_id)}`);
        ctx.body = created;
      },
    }),
    'GET /inventory/provider-inventory': route({
      summary: 'Per live provider: its imported sites, devices and objects (per type), live and stale, and its last sync.',
      query: noQuery,
      responses: { 200: { description: '`items`', schema: providerInventory } },
      async handle(ctx) {
        ctx.body = await providers.inventory(activeOrg(ctx));
      },
    }),
    'GET /inventory/providers/{provider_id}': route({
      summary: 'One provider by its provider id.',
      params: providerPath,
      query: noQuery,
      responses: { 200: PROVIDER, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await providers.get(activeOrg(ctx), params.provider_id);
      },
    }),
    'PATCH /inventory/providers/{provider_id}': route({
      summary: 'Change `config`, `credential_ref`, `description` or `enabled`; type and name make the id and are fixed.',
      params: providerPath,
      body: updateProviderBody,
      responses: { 200: PROVIDER, 404: NOT_FOUND, 422: BAD_CONFIG },
      async handle(ctx, { params, body }) {
        ctx.body = await providers.update(activeOrg(ctx), params.provider_id, body, ctx.state.audit);
      },
    }),
    'DELETE /inventory/providers/{provider_id}': route({
      summary: 'Soft-delete a provider: it no longer syncs; what it imported stays (restorable).',
      params: providerPath,
      responses: { 204: { description: 'Deleted' }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await providers.remove(activeOrg(ctx), params.provider_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /inventory/providers/{provider_id}/restore': route({
      summary: 'Restore a soft-deleted provider.',
      params: providerPath,
      noBody: true,
      responses: {
        200: PROVIDER,
        404: { description: 'No soft-deleted provider of this id' },
        409: { description: 'A live provider took the id (`conflict`)' },
      },
      async handle(ctx, { params }) {
        ctx.body = await providers.restore(activeOrg(ctx), params.provider_id, ctx.state.audit);
      },
    }),
    'DELETE /inventory/providers/{provider_id}/permanent': route({
      summary: 'Remove a provider for good (live or soft-deleted), with its sync history and every site, device and object it imported.',
      params: providerPath,
      responses: { 204: { description: 'Removed' }, 404: NOT_FOUND, 409: { description: '`inventory_sync_running`' } },
      async handle(ctx, { params }) {
        await providers.purge(activeOrg(ctx), params.provider_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /inventory/providers/{provider_id}/test-connection': route({
      summary:
        'Reach the provider and check its credential. Always 200 when the provider exists: `ok`, and the `error` (`code`, `message`) when not.',
      params: providerPath,
      noBody: true,
      responses: { 200: { description: 'The report', schema: connectionReport }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await syncs.test(activeOrg(ctx), params.provider_id, ctx.state.audit);
      },
    }),
    'POST /inventory/providers/{provider_id}/discover': route({
      summary: 'Ask the provider how many sites, devices and objects (per configured type) it holds, importing nothing.',
      params: providerPath,
      noBody: true,
      responses: {
        200: { description: 'The counts', schema: discovery },
        404: NOT_FOUND,
        409: { description: '`provider_disabled`' },
        502: UPSTREAM,
      },
      async handle(ctx, { params }) {
        ctx.body = await syncs.discover(activeOrg(ctx), params.provider_id);
      },
    }),
    'POST /inventory/providers/{provider_id}/sync': route({
      summary:
        'Sync now: creates, updates, restores and (full mode) marks stale the imported sites, devices and objects, a page at a time; answers when done. A failed sync is recorded and the next one resumes from its failed page.',
      params: providerPath,
      body: syncBody,
      responses: {
        200: { description: 'The finished sync, with its counts per outcome', schema: syncRun },
        404: NOT_FOUND,
        409: { description: '`inventory_sync_running` (`sync_id`), `provider_disabled`' },
        422: { description: '`validation_failed` (`mode`)' },
        502: { description: `${UPSTREAM.description}; \`sync_id\` names the failed sync in the history` },
      },
      async handle(ctx, { params, body }) {
        ctx.body = await syncs.sync(activeOrg(ctx), params.provider_id, body, ctx.state.audit);
      },
    }),
    'GET /inventory/providers/{provider_id}/sync-history': route({
      summary:
        'The syncs of a provider, newest first: mode, status, counts per outcome, the error of a failed page. `status`; `limit`, `offset`.',
      params: providerPath,
      query: syncHistoryQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: syncHistory }, 404: NOT_FOUND },
      async handle(ctx, { params, query }) {
        ctx.body = await syncs.history(activeOrg(ctx), params.provider_id, query);
      },
    }),
    'POST /inventory/providers/{provider_id}/purge-inventory': route({
      summary:
        'Remove for good every site, device and object the provider imported (live or stale); the provider stays. Irreversible, audited.',
      params: providerPath,
      noBody: true,
      responses: {
        200: { description: 'What was removed, per kind', schema: purged },
        404: NOT_FOUND,
        409: { description: '`inventory_sync_running`' },
      },
      async handle(ctx, { params }) {
        ctx.body = await syncs.purgeInventory(activeOrg(ctx), params.provider_id, ctx.state.audit);
      },
    }),
  };
}
