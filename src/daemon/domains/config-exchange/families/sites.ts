import { z } from 'zod';
import { distinctTags, name, text } from '../../../../shared/api/inventory.js';
import { changes } from '../../inventory/access.js';
import { defineFamily, orgOf, type FamilyContext } from '../family.js';
import type { SitesRowsRepo } from '../repos/sites-rows-repo.js';
import { depthAmong, orgAuditRecorder, refused, unresolved } from './references.js';

const FAMILY = 'sites';

const item = z
  .object({
    name,
    parent: name.nullable().default(null).describe("The parent site's name (site names are unique in an organization)"),
    description: text(10_000).nullable().default(null),
    address: text(1000).nullable().default(null),
    tags: distinctTags.default([]),
  })
  .strict();
type Item = z.infer<typeof item>;

/** Whether following parents through the bundle's sites comes back to `site`. */
function loopsBack(site: Item, byName: ReadonlyMap<string, Item>): boolean {
  const seen = new Set<string>();
  for (let parent = site.parent; parent !== null; parent = byName.get(parent)?.parent ?? null) {
    if (parent === site.name) return true;
    if (seen.has(parent) || !byName.has(parent)) return false;
    seen.add(parent);
  }
  return false;
}

/**
 * The organization's own sites (docs/inventory-api.md), keyed by name, the parent by its name. Sites a
 * provider brought are not exported (their provider's sync brings them); a bundle site whose name such
 * a site holds on the target is refused (`provider_managed`).
 */
export function sitesFamily(repo: SitesRowsRepo) {
  const audit = orgAuditRecorder('site:manage', 'site');
  const record = (ctx: FamilyContext, eventType: string, id: string, name: string, details: Record<string, unknown>) =>
    audit(ctx, eventType, id, { name, ...details });
  const fieldsOf = async (ctx: FamilyContext, i: Item) => {
    let parentId: string | null = null;
    if (i.parent !== null) {
      const parent = await repo.liveByName(ctx.db, orgOf(ctx).id, i.parent);
      if (!parent) throw unresolved(FAMILY, i.name, 'parent', i.parent);
      parentId = parent.id;
    }
    return { name: i.name, parent_id: parentId, description: i.description, address: i.address, tags: i.tags };
  };
  const ownSite = async (ctx: FamilyContext, siteName: string) => {
    const found = await repo.liveByName(ctx.db, orgOf(ctx).id, siteName);
    if (!found) throw new Error(`site ${siteName} vanished during the apply`);
    return found.id;
  };
  return defineFamily<Item>({
    name: FAMILY,
    scope: 'org',
    dependsOn: [],
    summary: "The organization's own sites (not provider-sourced ones), keyed by name; `parent` names the parent site.",
    item,
    keyOf: (i) => i.name,
    depthOf: (i, items) => depthAmong(i, items, (site) => site.parent),
    check: (i) => (i.parent === i.name ? [{ path: 'parent', message: 'a site cannot be its own parent' }] : []),
    // Parents named within the bundle must end somewhere: a loop (a under b, b under a) is no tree.
    checkSection(items) {
      const byName = new Map(items.map((i) => [i.name, i]));
      return items.flatMap((i, index) =>
        i.parent !== i.name && loopsBack(i, byName)
          ? [{ index, path: 'parent', message: 'the parents the bundle names lead back to this site' }]
          : [],
      );
    },
    async list(ctx) {
      const rows = await repo.localLive(ctx.db, orgOf(ctx).id);
      return rows.map((r) => ({ name: r.name, parent: r.parent, description: r.description, address: r.address, tags: r.tags }));
    },
    async create(ctx, i) {
      const taken = await repo.liveByName(ctx.db, orgOf(ctx).id, i.name);
      if (taken) throw refused(FAMILY, i.name, 'provider_managed', 'a provider-sourced site of the organization has this name.');
      const id = await repo.insert(ctx.db, orgOf(ctx).id, await fieldsOf(ctx, i), ctx.actor.sub);
      await record(ctx, 'entity.created', id, i.name, { snapshot: i });
    },
    async update(ctx, before, after) {
      const id = await ownSite(ctx, before.name);
      const fields = await fieldsOf(ctx, after);
      // As the inventory API does: a site never becomes its own ancestor (a loop the bundle closes over sites here).
      if (fields.parent_id !== null && (await repo.wouldCycle(ctx.db, orgOf(ctx).id, id, fields.parent_id))) {
        throw refused(FAMILY, after.name, 'parent_cycle', `parent "${after.parent}" would make the site its own ancestor.`);
      }
      await repo.update(ctx.db, id, fields, ctx.actor.sub);
      await record(ctx, 'entity.updated', id, after.name, {
        changes: changes(before, after, ['parent', 'description', 'address', 'tags']),
      });
    },
    async remove(ctx, i) {
      const id = await ownSite(ctx, i.name);
      const held = await repo.holdings(ctx.db, id);
      if (held.children > 0 || held.devices > 0) {
        throw refused(
          FAMILY,
          i.name,
          'in_use',
          `the site still holds ${held.children} live child site(s) and ${held.devices} live device(s).`,
        );
      }
      await repo.softDelete(ctx.db, id, ctx.actor.sub);
      await record(ctx, 'entity.deleted', id, i.name, {});
    },
  });
}
