import { z } from 'zod';
import { distinctTags, hostname, label, name } from '../../../../shared/api/inventory.js';
import { changes } from '../../inventory/access.js';
import { defineFamily, orgOf, type FamilyContext } from '../family.js';
import type { DevicesRowsRepo } from '../repos/devices-rows-repo.js';
import { orgAuditRecorder, refused, unresolved } from './references.js';

const FAMILY = 'devices';
const EDITABLE = ['hostname', 'platform', 'role', 'site', 'serial', 'tags', 'attributes'] as const;

const item = z
  .object({
    name,
    hostname: hostname.nullable().default(null),
    platform: label(100).nullable().default(null),
    role: label(100).nullable().default(null),
    site: name.nullable().default(null).describe("The site's name"),
    serial: label(255).nullable().default(null),
    tags: distinctTags.default([]),
    attributes: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
type Item = z.infer<typeof item>;

/**
 * The organization's own devices (docs/inventory-api.md), keyed by name, their site by its name. As for
 * sites, provider-sourced devices are not exported and a bundle device whose name one holds is refused.
 */
export function devicesFamily(repo: DevicesRowsRepo) {
  const audit = orgAuditRecorder('device:manage', 'device');
  const record = (ctx: FamilyContext, eventType: string, id: string, name: string, details: Record<string, unknown>) =>
    audit(ctx, eventType, id, { name, ...details });
  const fieldsOf = async (ctx: FamilyContext, i: Item) => {
    let siteId: string | null = null;
    if (i.site !== null) {
      siteId = (await repo.siteIdByName(ctx.db, orgOf(ctx).id, i.site)) ?? null;
      if (siteId === null) throw unresolved(FAMILY, i.name, 'site', i.site);
    }
    const { site: _site, ...rest } = i;
    return { ...rest, site_id: siteId };
  };
  const ownDevice = async (ctx: FamilyContext, deviceName: string) => {
    const found = await repo.liveByName(ctx.db, orgOf(ctx).id, deviceName);
    if (!found) throw new Error(`device ${deviceName} vanished during the apply`);
    return found.id;
  };
  return defineFamily<Item>({
    name: FAMILY,
    scope: 'org',
    dependsOn: ['sites'],
    summary: "The organization's own devices (not provider-sourced ones), keyed by name; `site` names their site.",
    item,
    keyOf: (i) => i.name,
    async list(ctx) {
      return repo.localLive(ctx.db, orgOf(ctx).id);
    },
    async create(ctx, i) {
      if (await repo.liveByName(ctx.db, orgOf(ctx).id, i.name)) {
        throw refused(FAMILY, i.name, 'provider_managed', 'a provider-sourced device of the organization has this name.');
      }
      const id = await repo.insert(ctx.db, orgOf(ctx).id, await fieldsOf(ctx, i), ctx.actor.sub);
      await record(ctx, 'entity.created', id, i.name, { snapshot: i });
    },
    async update(ctx, before, after) {
      const id = await ownDevice(ctx, before.name);
      await repo.update(ctx.db, id, await fieldsOf(ctx, after), ctx.actor.sub);
      await record(ctx, 'entity.updated', id, after.name, { changes: changes(before, after, EDITABLE) });
    },
    async remove(ctx, i) {
      const id = await ownDevice(ctx, i.name);
      await repo.softDelete(ctx.db, id, ctx.actor.sub);
      await record(ctx, 'entity.deleted', id, i.name, {});
    },
  });
}
