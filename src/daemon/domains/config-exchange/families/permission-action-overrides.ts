import { z } from 'zod';
import type { Catalogue } from '../../../../shared/catalogue/catalogue.js';
import { POLICIES } from '../../../../shared/policy/policies.js';
import { checkActionOverride } from '../../../../shared/policy/resolution.js';
import type { OverrideStore } from '../../../authz/override-store.js';
import { defineFamily, type FamilyContext } from '../family.js';
import type { PermissionOverridesRepo } from '../repos/permission-overrides-repo.js';
import { ruleIssues } from './override-rules.js';

const item = z
  .object({
    action: z.string().min(1).describe('A catalogue action, e.g. `run:execute`'),
    policy: z.enum(POLICIES).describe('The policy every route of the action takes'),
  })
  .strict();
type Item = z.infer<typeof item>;

/** The action layer of permission overrides (access-control rule 9): one policy per catalogue action. */
export function permissionActionOverridesFamily(deps: { catalogue: Catalogue; repo: PermissionOverridesRepo; store: OverrideStore }) {
  const { repo } = deps;
  const reload = (ctx: FamilyContext) => ctx.afterCommit(() => deps.store.reload());
  const record = (ctx: FamilyContext, action: string, previous: string | null, policy: string | null) =>
    ctx.audit({
      eventType: policy === null ? 'permission.override_cleared' : 'permission.override_set',
      action: 'permission:manage',
      resourceType: 'permission_action_override',
      resourceId: action,
      outcome: 'success',
      orgId: null,
      details: { layer: 'action', action, old_policy: previous, new_policy: policy },
    });
  return defineFamily<Item>({
    name: 'permission_action_overrides',
    scope: 'platform',
    dependsOn: [],
    summary: 'Policy overrides per catalogue action (`PUT /permissions/actions/{action}`), keyed by action.',
    item,
    keyOf: (i) => i.action,
    check: (i) => ruleIssues(() => checkActionOverride(deps.catalogue, i.action, i.policy)),
    list: (ctx) => repo.actions(ctx.db).then((rows) => rows.map((r) => ({ action: r.action, policy: r.policy as Item['policy'] }))),
    async create(ctx, i) {
      await repo.setAction(ctx.db, i.action, i.policy, ctx.actor);
      await record(ctx, i.action, null, i.policy);
      reload(ctx);
    },
    async update(ctx, before, after) {
      await repo.setAction(ctx.db, after.action, after.policy, ctx.actor);
      await record(ctx, after.action, before.policy, after.policy);
      reload(ctx);
    },
    async remove(ctx, i) {
      await repo.clearAction(ctx.db, i.action);
      await record(ctx, i.action, i.policy, null);
      reload(ctx);
    },
  });
}
