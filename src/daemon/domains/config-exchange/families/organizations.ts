import { z } from 'zod';
import { createOrgBody } from '../../../../shared/api/tenancy.js';
import { MAPPINGS_CHANNEL, notify } from '../../../db/channels.js';
import { changes } from '../../inventory/access.js';
import { atMostOne, defineFamily, type FamilyContext } from '../family.js';
import type { OrganizationsRowsRepo } from '../repos/organizations-rows-repo.js';
import { bodyIssues } from './org-table-family.js';
import { refused } from './references.js';

const FAMILY = 'organizations';

const item = z
  .object({
    slug: z.string().min(2).max(100),
    name: z.string().trim().min(1).max(255),
    description: z.string().max(10_000).nullable().default(null),
    is_active: z.boolean().default(true),
    is_shared: z.boolean().default(false).describe('At most one organization is shared: applying one takes the mark from another'),
    settings: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
type Item = z.infer<typeof item>;

/**
 * The installation's organizations (docs/orgs-api.md), keyed by slug. Which one is the default is each
 * installation's own and does not travel. Organizations are created and changed, never pruned: deleting
 * one takes every row it owns with it, which only `DELETE /orgs/{org_ref}` does, deliberately.
 */
export function organizationsFamily(repo: OrganizationsRowsRepo) {
  const record = (ctx: FamilyContext, eventType: string, id: string, details: Record<string, unknown>) =>
    ctx.audit({ eventType, action: 'org:manage', resourceType: 'organization', resourceId: id, outcome: 'success', orgId: id, details });
  const takeSharedMark = async (ctx: FamilyContext, i: Item) => {
    if (!i.is_shared) return;
    for (const previous of await repo.clearShared(ctx.db, i.slug)) {
      await record(ctx, 'org.updated', previous.id, {
        slug: previous.slug,
        changes: { is_shared: { old: true, new: false } },
        shared_moved_to: i.slug,
      });
    }
  };
  return defineFamily<Item>({
    name: FAMILY,
    scope: 'platform',
    dependsOn: [],
    summary: 'The organizations, keyed by slug (never pruned; the default organization is each installation’s own).',
    item,
    keyOf: (i) => i.slug,
    check: (i) => bodyIssues(createOrgBody, { slug: i.slug, name: i.name, description: i.description, settings: i.settings }),
    // Applying two shared organizations would leave only the last one shared: the bundle could never be met.
    checkSection: (items) => atMostOne(items, (i) => i.is_shared, 'is_shared', 'at most one organization is shared'),
    list: (ctx) => repo.all(ctx.db),
    async create(ctx, i) {
      await takeSharedMark(ctx, i);
      const id = await repo.insert(ctx.db, i);
      if (await repo.slugRetired(ctx.db, i.slug)) {
        throw refused(FAMILY, i.slug, 'org_slug_retired', "the slug was a deleted organization's and is never given to another.");
      }
      await record(ctx, 'org.created', id, { slug: i.slug, name: i.name, description: i.description, settings: i.settings });
    },
    async update(ctx, before, after) {
      const found = await repo.bySlug(ctx.db, before.slug);
      if (!found) throw new Error(`organization ${before.slug} vanished during the apply`);
      if (found.is_default && !after.is_active) {
        throw refused(FAMILY, after.slug, 'default_org_protected', 'the default organization cannot be deactivated.');
      }
      await takeSharedMark(ctx, after);
      await repo.update(ctx.db, found.id, after);
      if (before.is_active !== after.is_active) await notify(ctx.db, MAPPINGS_CHANNEL, found.id);
      await record(ctx, 'org.updated', found.id, {
        slug: after.slug,
        changes: changes(before, after, ['name', 'description', 'is_active', 'is_shared', 'settings']),
      });
    },
    async remove(_ctx, i) {
      throw refused(FAMILY, i.slug, 'organizations_not_pruned', 'an organization is deleted only through DELETE /orgs/{org_ref}.');
    },
  });
}
