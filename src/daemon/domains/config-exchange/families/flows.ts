import { z } from 'zod';
import { flowDefinitionSchema, validateDefinition } from '../../../../shared/flows/definition-schema.js';
import type { FlowDefinition } from '../../../../shared/flows/definition.js';
import { sameJson } from '../../../../shared/flows/same-json.js';
import { changes } from '../../inventory/access.js';
import type { CommitHooks } from '../../flows/module.js';
import { defineFamily, orgOf, type FamilyContext } from '../family.js';
import type { FlowsRowsRepo } from '../repos/flows-rows-repo.js';
import { refused } from './references.js';

const item = z
  .object({
    name: z.string().trim().min(1).max(255),
    description: z.string().max(10_000).nullable().default(null),
    pinned: z.boolean().default(false),
    manual_runs_enabled: z.boolean().default(true),
    draft: flowDefinitionSchema.describe('The editable draft'),
    committed: flowDefinitionSchema.nullable().default(null).describe('The newest committed version; null when never committed'),
  })
  .strict();
type Item = z.infer<typeof item>;

const FAMILY = 'flows';
const SETTINGS = ['description', 'pinned', 'manual_runs_enabled', 'draft', 'committed'] as (keyof Item)[];
const MESSAGE = 'Committed by configuration exchange';

/**
 * The organization's live flows, keyed by name: settings, the draft, and the newest committed version's
 * definition (`committed`). History does not travel: applying a `committed` that differs from the target's
 * newest version commits it as the next version (through the flows domain's commit hooks, so attachments
 * pin their contents); a flow created from a bundle starts at version 1. Attachments' bytes do not travel.
 */
export function flowsFamily(repo: FlowsRowsRepo, hooks: Pick<CommitHooks, 'run'>) {
  const record = (ctx: FamilyContext, eventType: string, action: string, id: string, details: Record<string, unknown>) =>
    ctx.audit({ eventType, action, resourceType: 'flow', resourceId: id, outcome: 'success', orgId: orgOf(ctx).id, details });

  const commit = async (ctx: FamilyContext, flow: { id: string; org_id: string }, version: number, i: Item) => {
    const definition = i.committed as FlowDefinition;
    if (validateDefinition(definition).length > 0)
      throw refused(
        FAMILY,
        i.name,
        'committed_invalid',
        'the committed definition does not pass the flow rules, so it cannot be committed',
      );
    const versionId = await repo.insertVersion(ctx.db, flow.id, version, definition, MESSAGE, ctx.actor.sub);
    await hooks.run({ flow, versionId, version, definition }, ctx.db as never);
    await record(ctx, 'flow.committed', 'flow:commit', flow.id, { name: i.name, version, message: MESSAGE });
  };

  return defineFamily<Item>({
    name: FAMILY,
    scope: 'org',
    dependsOn: [],
    summary:
      "The organization's flows: settings, draft and the newest committed version (committed as the next version where it differs); no history, no attachment bytes.",
    item,
    keyOf: (i) => i.name,
    async list(ctx) {
      const rows = await repo.live(ctx.db, orgOf(ctx).id);
      return rows.map((r) => ({
        name: r.name,
        description: r.description,
        pinned: r.is_pinned,
        manual_runs_enabled: r.manual_runs_enabled,
        draft: r.draft_json as Item['draft'],
        committed: r.committed_json as Item['committed'],
      }));
    },
    async create(ctx, i) {
      const orgId = orgOf(ctx).id;
      const id = await repo.insert(
        ctx.db,
        orgId,
        {
          name: i.name,
          description: i.description,
          is_pinned: i.pinned,
          manual_runs_enabled: i.manual_runs_enabled,
          draft_json: i.draft as FlowDefinition,
          draft_dirty: i.committed === null || !sameJson(i.committed, i.draft),
        },
        ctx.actor.sub,
      );
      const { committed: _c, draft: _d, ...settings } = i;
      await record(ctx, 'entity.created', 'flow:manage', id, { ...settings, committed: i.committed !== null });
      if (i.committed !== null) {
        await commit(ctx, { id, org_id: orgId }, 1, i);
        await repo.update(ctx.db, id, { latest_version: 1 }, ctx.actor.sub);
      }
    },
    async update(ctx, before, after) {
      const flow = await repo.lock(ctx.db, orgOf(ctx).id, before.name);
      if (after.committed === null && before.committed !== null)
        throw refused(FAMILY, after.name, 'committed_removed', 'committed versions are never removed: the bundle must carry one');
      let latest = flow.latest_version;
      if (after.committed !== null && !sameJson(after.committed, before.committed)) await commit(ctx, flow, ++latest, after);
      await repo.update(
        ctx.db,
        flow.id,
        {
          description: after.description,
          is_pinned: after.pinned,
          manual_runs_enabled: after.manual_runs_enabled,
          draft_json: after.draft as FlowDefinition,
          draft_dirty: after.committed === null || !sameJson(after.committed, after.draft),
          latest_version: latest,
        },
        ctx.actor.sub,
      );
      // Field names only: the flows domain never audits a definition itself.
      const changed = Object.keys(changes(before, after, SETTINGS));
      await record(ctx, 'entity.updated', 'flow:manage', flow.id, { name: after.name, changes: changed });
    },
    async remove(ctx, i) {
      const flow = await repo.lock(ctx.db, orgOf(ctx).id, i.name);
      if (await repo.triggeredByWebhook(ctx.db, flow.id))
        throw refused(FAMILY, i.name, 'in_use', 'a webhook endpoint still triggers this flow: remove or repoint it first');
      await repo.softDelete(ctx.db, flow.id, ctx.actor.sub);
      await record(ctx, 'entity.deleted', 'flow:manage', flow.id, { name: i.name });
    },
  });
}
