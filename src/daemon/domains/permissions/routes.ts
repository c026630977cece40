import { z } from 'zod';
import { CATALOGUE } from '../../../shared/catalogue/catalogue.js';
import { scopeOf } from '../../../shared/policy/org-scope.js';
import { STRUCTURAL_POLICIES } from '../../../shared/policy/policies.js';
import type { Explainer } from '../../authz/explain.js';
import type { OverrideService } from '../../authz/override-service.js';
import type { OverrideStore } from '../../authz/override-store.js';
import type { UsersRepo } from '../../tenancy/users-repo.js';
import { problems } from '../../../shared/api/problems.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';

export interface PermissionRoutesDeps {
  readonly overrideStore: OverrideStore;
  readonly overrides: OverrideService;
  readonly explainer: Explainer;
  readonly users: UsersRepo;
}

const actionBody = z.object({ action: z.string().min(1).max(100), policy: z.string().min(1).max(50) }).strict();
const actionTarget = z.object({ action: z.string().min(1).max(100) }).strict();
const routeBody = z
  .object({ method: z.string().min(1).max(10), path: z.string().min(1).max(500), policy: z.string().min(1).max(50) })
  .strict();
const routeTarget = z.object({ method: z.string().min(1).max(10), path: z.string().min(1).max(500) }).strict();
const explainQuery = z
  .object({
    explain: z.literal(['1', 'true']),
    method: z.string().min(1).max(10),
    path: z.string().min(1).max(500),
    username: z.string().min(1).max(255).optional(),
    realm_roles: z.string().max(500).optional(),
    org: z.string().min(1).max(100).optional(),
  })
  .strict();

/** DELETE takes its target from the query string or, where a client sends one, a JSON body. */
function target(ctx: AppContext): unknown {
  return ctx.state.body ?? ctx.query;
}

function editor(ctx: AppContext) {
  const principal = ctx.state.auth!.principal!;
  return principal;
}

/** The permission matrix and its two override layers (`permission:manage`, pinned to platform admins). */
export function permissionRoutes({ overrideStore, overrides, explainer, users }: PermissionRoutesDeps): DomainRoutes {
  async function explain(ctx: AppContext): Promise<void> {
    const query = validate(explainQuery, ctx.query);
    const route = CATALOGUE.routeByKey.get(`${query.method.toUpperCase()} ${query.path}`);
    if (!route)
      throw problems.validation([{ path: 'path', message: 'not a route of the catalogue (use its pattern, e.g. /runs/{run_id})' }]);
    const user = query.username ? await users.findByUsername(query.username) : undefined;
    if (query.username && !user) throw problems.validation([{ path: 'username', message: 'no such user' }]);
    const realmRoles = (query.realm_roles ?? '')
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean);
    const principal = user
      ? {
          sub: user.sub,
          username: user.username,
          email: user.email ?? '',
          realmRoles,
          clientRoles: [],
          groups: [],
          isServiceAccount: false,
        }
      : { sub: '', username: '(hypothetical)', email: '', realmRoles, clientRoles: [], groups: [], isServiceAccount: false };
    ctx.body = await explainer.explain(route, { principal, orgRef: query.org });
  }

  return {
    'GET /settings/permissions/actions': {
      docs: {
        summary: 'Effective action-level matrix: each action, its default, its override, the policy in effect.',
        responses: { 200: { description: 'Actions' } },
      },
      handle(ctx) {
        const snapshot = overrideStore.snapshot;
        const rows = new Map(snapshot.actionRows.map((r) => [r.action, r]));
        ctx.body = {
          actions: CATALOGUE.actions.map((a) => {
            const row = rows.get(a.action);
            const override = snapshot.actions.get(a.action) ?? null;
            return {
              action: a.action,
              default_policy: a.policy,
              override,
              effective_policy: override ?? a.policy,
              overridable: !STRUCTURAL_POLICIES.has(a.policy) && a.action !== 'permission:manage',
              routes: a.routes.length,
              updated_by: row?.updated_by_username ?? null,
              updated_at: row ? new Date(row.updated_at).toISOString() : null,
            };
          }),
        };
      },
    },
    'GET /settings/permissions': {
      docs: {
        summary:
          'Effective route-level matrix; with `?explain=1&method=&path=[&username=&realm_roles=&org=]`, why a caller would be allowed or refused.',
        responses: { 200: { description: 'Routes, or one explanation' } },
      },
      async handle(ctx) {
        if (ctx.query.explain !== undefined) return explain(ctx);
        if (Object.keys(ctx.query).length > 0) validate(z.object({}).strict(), ctx.query);
        const snapshot = overrideStore.snapshot;
        ctx.body = {
          routes: CATALOGUE.routes.map((route) => {
            const effective = overrideStore.resolve(route);
            return {
              method: route.method,
              path: route.path,
              action: route.action,
              scope: scopeOf(route),
              default_policy: route.defaultPolicy,
              action_override: snapshot.actions.get(route.action) ?? null,
              route_override: snapshot.routes.get(route.key) ?? null,
              effective_policy: effective.policy,
              source: effective.source,
            };
          }),
        };
      },
    },
    'PUT /settings/permissions/actions/override': {
      docs: {
        summary: 'Set an action override: `{"action", "policy"}`.',
        responses: { 200: { description: 'The change, with the previous policy' } },
      },
      async handle(ctx) {
        const body = validate(actionBody, ctx.state.body);
        const change = await overrides.setAction(body.action, body.policy, editor(ctx), ctx.state.audit);
        ctx.body = { action: body.action, ...change };
      },
    },
    'DELETE /settings/permissions/actions/override': {
      docs: {
        summary: 'Clear an action override (`?action=`).',
        responses: { 200: { description: 'The change, with the previous policy' } },
      },
      async handle(ctx) {
        const body = validate(actionTarget, target(ctx));
        const change = await overrides.clearAction(body.action, ctx.state.audit);
        ctx.body = { action: body.action, ...change };
      },
    },
    'PUT /settings/permissions/override': {
      docs: {
        summary: 'Set a route override: `{"method", "path" (the catalogue pattern), "policy"}`.',
        responses: { 200: { description: 'The change, with the previous policy' } },
      },
      async handle(ctx) {
        const body = validate(routeBody, ctx.state.body);
        const change = await overrides.setRoute(body.method, body.path, body.policy, editor(ctx), ctx.state.audit);
        ctx.body = { method: body.method.toUpperCase(), path: body.path, ...change };
      },
    },
    'DELETE /settings/permissions/override': {
      docs: {
        summary: 'Clear a route override (`?method=&path=`).',
        responses: { 200: { description: 'The change, with the previous policy' } },
      },
      async handle(ctx) {
        const body = validate(routeTarget, target(ctx));
        const change = await overrides.clearRoute(body.method, body.path, ctx.state.audit);
        ctx.body = { method: body.method.toUpperCase(), path: body.path, ...change };
      },
    },
  };
}
