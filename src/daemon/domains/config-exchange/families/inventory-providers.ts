import { z } from 'zod';
import { PROVIDER_NAME, PROVIDER_TYPES } from '../../../../shared/api/inventory-providers.js';
import { Problem } from '../../../../shared/api/problem.js';
import { providerIdOf } from '../../../../shared/inventory/provider-ref.js';
import { changes } from '../../inventory/access.js';
import { checkConfig, checkCredentialRef, pluginOf } from '../../inventory-providers/provider-config.js';
import { defineFamily, orgOf, type FamilyContext, type ItemIssue } from '../family.js';
import type { InventoryProvidersRowsRepo } from '../repos/inventory-providers-rows-repo.js';
import { orgAuditRecorder, unresolved } from './references.js';

const FAMILY = 'inventory_providers';
/** Stands in for the file id while the configuration is checked: the real one is only known on the target. */
const SOME_FILE_ID = '00000000-0000-4000-8000-000000000000';

const item = z
  .object({
    type: z.enum(PROVIDER_TYPES),
    name: z.string().regex(PROVIDER_NAME, 'lower-case letters, digits, ".", "_" and "-", 1-63 characters'),
    description: z.string().max(10_000).nullable().default(null),
    config: z.record(z.string(), z.unknown()).default({}).describe("The plugin's configuration, without `document_file_id`"),
    document_file: z
      .object({ repository: z.string().min(1), folder: z.string(), name: z.string().min(1) })
      .strict()
      .nullable()
      .default(null)
      .describe("A static provider's document file, by its repository's name, folder and name (not its id)"),
    credential_ref: z.string().min(1).max(2048).nullable().default(null).describe('A secret reference, never a secret value'),
    enabled: z.boolean().default(true),
  })
  .strict();
type Item = z.infer<typeof item>;

const EDITABLE = ['description', 'config', 'document_file', 'credential_ref', 'enabled'] as const;

/** The plugin's rules over the item's configuration and credential, as issues inside the item. */
function issuesOf(i: Item): ItemIssue[] {
  try {
    const plugin = pluginOf(i.type);
    checkConfig(plugin, configOf(i, i.document_file ? SOME_FILE_ID : undefined));
    checkCredentialRef(plugin, i.credential_ref);
    return [];
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const errors = (error.extensions.errors as { path: string; message: string }[] | undefined) ?? [{ path: '', message: error.message }];
    return errors.map((e) => ({ path: e.path, message: e.message }));
  }
}

function configOf(i: Item, fileId: string | undefined): Record<string, unknown> {
  return fileId === undefined ? i.config : { ...i.config, document_file_id: fileId };
}

/**
 * The organization's inventory providers (docs/inventory-providers.md), keyed `type:name`: the provider id
 * without the organization id it carries outside the default organization (the target's is its own).
 * Sync state stays behind; a static provider's document file travels by place, not id.
 */
export function inventoryProvidersFamily(repo: InventoryProvidersRowsRepo) {
  const audit = orgAuditRecorder('inventory_provider:manage', 'inventory_provider');
  const record = (ctx: FamilyContext, eventType: string, id: string, i: Item, details: Record<string, unknown>) =>
    audit(ctx, eventType, id, { name: i.name, type: i.type, ...details });
  const providerId = async (ctx: FamilyContext, i: Item) =>
    providerIdOf(i.type, i.name, (await repo.isDefaultOrg(ctx.db, orgOf(ctx).id)) ? null : orgOf(ctx).id);
  const fieldsOf = async (ctx: FamilyContext, i: Item) => {
    let fileId: string | undefined;
    if (i.document_file) {
      fileId = await repo.fileAt(ctx.db, orgOf(ctx).id, i.document_file);
      const place = `${i.document_file.repository}:${i.document_file.folder}/${i.document_file.name}`;
      if (!fileId) throw unresolved(FAMILY, `${i.type}:${i.name}`, 'document_file', place);
    }
    const { type, name, description, credential_ref, enabled } = i;
    return { type, name, description, credential_ref, enabled, config_json: checkConfig(pluginOf(type), configOf(i, fileId)) };
  };
  return defineFamily<Item>({
    name: FAMILY,
    scope: 'org',
    dependsOn: [],
    summary: "The organization's inventory providers, keyed `type:name`; credentials as secret references, sync state left behind.",
    item,
    keyOf: (i) => `${i.type}:${i.name}`,
    check: issuesOf,
    async list(ctx) {
      const rows = await repo.live(ctx.db, orgOf(ctx).id);
      return rows.map(({ config_json: { document_file_id: _file, ...config }, ...r }) => ({
        type: r.type as Item['type'],
        name: r.name,
        description: r.description,
        config,
        document_file: r.document_file,
        credential_ref: r.credential_ref,
        enabled: r.enabled,
      }));
    },
    async create(ctx, i) {
      const id = await repo.insert(ctx.db, orgOf(ctx).id, await providerId(ctx, i), await fieldsOf(ctx, i), ctx.actor.sub);
      await record(ctx, 'entity.created', id, i, { snapshot: i });
    },
    async update(ctx, before, after) {
      const id = await repo.idOf(ctx.db, await providerId(ctx, before));
      await repo.update(ctx.db, id, await fieldsOf(ctx, after), ctx.actor.sub);
      await record(ctx, 'entity.updated', id, after, { changes: changes(before, after, EDITABLE) });
    },
    async remove(ctx, i) {
      const id = await repo.idOf(ctx.db, await providerId(ctx, i));
      await repo.softDelete(ctx.db, id, ctx.actor.sub);
      await record(ctx, 'entity.deleted', id, i, {});
    },
  });
}
