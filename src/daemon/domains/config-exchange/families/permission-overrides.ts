import { z } from 'zod';
import type { Catalogue } from '../../../../shared/catalogue/catalogue.js';
import { HTTP_METHODS } from '../../../../shared/catalogue/types.js';
import { POLICIES } from '../../../../shared/policy/policies.js';
import { checkRouteOverride } from '../../../../shared/policy/resolution.js';
import type { OverrideStore } from '../../../authz/override-store.js';
import { defineFamily, type FamilyContext } from '../family.js';
import type { PermissionOverridesRepo } from '../repos/permission-overrides-repo.js';
import { ruleIssues } from './override-rules.js';

const item = z
  .object({
    method: z.enum(HTTP_METHODS),
    path: z.string().min(1).describe('The catalogue pattern, e.g. `/runs/{run_id}`'),
    policy: z.enum(POLICIES),
  })
  .strict();
type Item = z.infer<typeof item>;

/** The route layer of permission overrides (access-control rule 9): one policy per catalogue route, keyed `METHOD path`. */
export function permissionOverridesFamily(deps: { catalogue: Catalogue; repo: PermissionOverridesRepo; store: OverrideStore }) {
  const { repo } = deps;
  const reload = (ctx: FamilyContext) => ctx.afterCommit(() => deps.store.reload());
  const record = (ctx: FamilyContext, i: Item, previous: string | null, policy: string | null) => {
    const route = `${i.method} ${i.path}`;
    return ctx.audit({
      eventType: policy === null ? 'permission.override_cleared' : 'permission.override_set',
      action: 'permission:manage',
      resourceType: 'permission_override',
      resourceId: route,
      outcome: 'success',
      orgId: null,
      details: { layer: 'route', route, action: deps.catalogue.routeByKey.get(route)?.action, old_policy: previous, new_policy: policy },
    });
  };
  return defineFamily<Item>({
    name: 'permission_overrides',
    scope: 'platform',
    dependsOn: ['permission_action_overrides'],
    summary: 'Policy overrides per catalogue route (`PUT /permissions/routes`), keyed `METHOD path`.',
    item,
    keyOf: (i) => `${i.method} ${i.path}`,
    check: (i) => ruleIssues(() => checkRouteOverride(deps.catalogue, i.method, i.path, i.policy)),
    list: (ctx) =>
      repo
        .routes(ctx.db)
        .then((rows) => rows.map((r) => ({ method: r.method as Item['method'], path: r.path, policy: r.policy as Item['policy'] }))),
    async create(ctx, i) {
      await repo.setRoute(ctx.db, i.method, i.path, i.policy, ctx.actor);
      await record(ctx, i, null, i.policy);
      reload(ctx);
    },
    async update(ctx, before, after) {
      await repo.setRoute(ctx.db, after.method, after.path, after.policy, ctx.actor);
      await record(ctx, after, before.policy, after.policy);
      reload(ctx);
    },
    async remove(ctx, i) {
      await repo.clearRoute(ctx.db, i.method, i.path);
      await record(ctx, i, i.policy, null);
      reload(ctx);
    },
  });
}
