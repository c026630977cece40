import { z } from 'zod';
import { pageShape } from './query.js';
import { stamps } from './stamps.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of the inventory provider routes (`/inventory/providers…`, `/inventory/provider-inventory`,
 * `/inventory/provider-types`, `/inventory/plugins`, `/settings/plugins`). The daemon validates and
 * documents with them; the CLI's types are inferred from them. docs/inventory-providers.md.
 */

export const PROVIDER_TYPES = ['netbox', 'nautobot', 'static'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** Lower-case letters, digits, `-`, `_`, `.`; no `:` (it separates the parts of a provider id). */
export const PROVIDER_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** `{provider_id}` in a path: `<type>:<name>` or `<type>:<name>:<org_id>`; anything else is no provider (404). */
export const providerPath = z.object({ provider_id: pathId });

const name = z
  .string()
  .regex(PROVIDER_NAME, 'lower-case letters, digits, ".", "_" and "-", 1-63 characters, starting with a letter or digit');
const credentialRef = z
  .string()
  .min(1)
  .max(2048)
  .describe("A secret reference (`{{ secret('<name>') }}` or `<scheme>://orgs/<org_slug>/secrets/<path>[#key]`): the API token");

export const createProviderBody = z
  .object({
    type: z.string().min(1).max(32).describe('`netbox`, `nautobot` or `static` (GET /inventory/plugins)'),
    name,
    provider_id: z.string().max(255).optional().describe('Optional; when given it must be the id the type and name make'),
    description: z.string().max(10_000).nullable().optional(),
    config: z.record(z.string(), z.unknown()).default({}).describe("The plugin's configuration (its schema: GET /inventory/plugins)"),
    credential_ref: credentialRef.nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type CreateProviderBody = z.infer<typeof createProviderBody>;

/** Type and name make the provider id: they are fixed once created. */
export const updateProviderBody = z
  .object({
    description: z.string().max(10_000).nullable(),
    config: z.record(z.string(), z.unknown()),
    credential_ref: credentialRef.nullable(),
    enabled: z.boolean(),
  })
  .partial()
  .strict();
export type UpdateProviderBody = z.infer<typeof updateProviderBody>;

const bool = z.enum(['true', 'false']);

export const listProvidersQuery = z
  .object({ type: z.string().max(32).optional(), include_deleted: bool.optional(), ...pageShape })
  .strict();

export const SYNC_STATUSES = ['running', 'succeeded', 'failed'] as const;

const outcomeCounts = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  restored: z.number().int(),
  unchanged: z.number().int(),
  stale: z.number().int(),
  skipped: z.number().int().describe('Not imported: a name a local row holds, or an item the provider answered malformed'),
});
export type OutcomeCounts = z.infer<typeof outcomeCounts>;

export const syncCounts = z.object({ sites: outcomeCounts, devices: outcomeCounts, objects: outcomeCounts });
export type SyncCounts = z.infer<typeof syncCounts>;

export const syncError = z.object({
  code: z.string().describe('`auth_failed`, `upstream_status`, `timeout`, `address_not_allowed`, `malformed_answer`, …'),
  message: z.string(),
  phase: z.string().nullable().describe('`sites`, `devices`, `objects:<type>` or `stale`'),
  page: z.string().nullable().describe('The page that failed (its URL without credentials, or its offset)'),
});

export const syncRun = z.object({
  id: z.string(),
  provider_id: z.string(),
  mode: z.enum(['full', 'incremental']),
  status: z.enum(SYNC_STATUSES),
  resumed_from: z.string().nullable().describe('The failed sync this one continued'),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  counts: syncCounts,
  error: syncError.nullable(),
  triggered_by: z.string().nullable(),
});
export type SyncRun = z.infer<typeof syncRun>;

export const provider = z.object({
  id: z.string(),
  provider_id: z.string(),
  org_id: z.string(),
  type: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  config: z.record(z.string(), z.unknown()),
  credential_ref: z.string().nullable().describe('The reference as given; never a value'),
  enabled: z.boolean(),
  sync_watermark: z.string().nullable(),
  last_sync: z.object({ id: z.string(), status: z.string(), at: z.string() }).nullable().describe('The newest sync'),
  ...stamps,
});
export type Provider = z.infer<typeof provider>;

const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const providerList = pageOf(provider);
export type ProviderList = z.infer<typeof providerList>;

export const syncHistoryQuery = z.object({ status: z.enum(SYNC_STATUSES).optional(), ...pageShape }).strict();
export const syncHistory = pageOf(syncRun);
export type SyncHistory = z.infer<typeof syncHistory>;

export const syncBody = z
  .object({
    mode: z
      .enum(['full', 'incremental'])
      .optional()
      .describe('`full` (default) reads everything and marks stale what is gone; `incremental` reads what changed since the watermark'),
    resume: z.boolean().optional().describe('Continue a failed sync from its failed page (default true)'),
  })
  .strict();

export const connectionReport = z.object({
  ok: z.boolean(),
  provider_id: z.string(),
  details: z.record(z.string(), z.unknown()).describe('What the provider said about itself (version, …) when reached'),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type ConnectionReport = z.infer<typeof connectionReport>;

export const discovery = z.object({
  provider_id: z.string(),
  sites: z.number().int().nullable(),
  devices: z.number().int().nullable(),
  objects: z.record(z.string(), z.number().int().nullable()),
});
export type Discovery = z.infer<typeof discovery>;

const kindCounts = z.object({ live: z.number().int(), stale: z.number().int() });

export const providerInventory = z.object({
  items: z.array(
    z.object({
      provider_id: z.string(),
      type: z.string(),
      name: z.string(),
      sites: kindCounts,
      devices: kindCounts,
      objects: z.record(z.string(), kindCounts),
      last_sync: z.object({ id: z.string(), status: z.string(), at: z.string() }).nullable(),
    }),
  ),
});
export type ProviderInventory = z.infer<typeof providerInventory>;

export const plugin = z.object({
  kind: z.literal('inventory_provider'),
  type: z.string(),
  label: z.string(),
  description: z.string(),
  incremental: z.boolean().describe('Whether the provider can answer only what changed since a time'),
  object_types: z.array(z.string()),
  credential: z.enum(['required', 'optional', 'none']),
  config_schema: z.record(z.string(), z.unknown()).describe('JSON Schema of `config`'),
});
export const pluginList = z.object({ items: z.array(plugin) });
export type PluginList = z.infer<typeof pluginList>;

export const providerTypes = z.object({
  items: z.array(z.object({ type: z.string(), label: z.string(), incremental: z.boolean(), object_types: z.array(z.string()) })),
});
export type ProviderTypes = z.infer<typeof providerTypes>;
