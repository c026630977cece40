import type { z } from 'zod';
import {
  actionMatrix,
  actionOverrideChange,
  actionTarget,
  permissionsAnswer,
  permissionsQuery,
  routeOverrideChange,
  routeTarget,
  setActionOverrideBody,
  setRouteOverrideBody,
} from '../../../shared/api/permissions.js';
import { CATALOGUE } from '../../../shared/catalogue/catalogue.js';
import { scopeOf } from '../../../shared/policy/org-scope.js';
import { STRUCTURAL_POLICIES } from '../../../shared/policy/policies.js';
import type { Explainer } from '../../authz/explain.js';
import type { OverrideService } from '../../authz/override-service.js';
import type { OverrideStore } from '../../authz/override-store.js';
import type { UsersRepo } from '../../tenancy/users-repo.js';
import { problems } from '../../../shared/api/problems.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';

export interface PermissionRoutesDeps {
  readonly overrideStore: OverrideStore;
  readonly overrides: OverrideService;
  readonly explainer: Explainer;
  readonly users: UsersRepo;
}

type Target<K extends string> = Partial<Record<K, string>>;

/**
 * A DELETE names its target in the query string or, where a client sends one, in a JSON body, which then
 * wins; both were checked by their schemas, and the chosen one must name the whole target.
 */
function targetOf<K extends string>(ctx: AppContext, query: Target<K>, body: Target<K>, keys: readonly K[]): Record<K, string> {
  const target = ctx.state.body === undefined || ctx.state.body === null ? query : body;
  const missing = keys.filter((key) => target[key] === undefined);
  if (missing.length > 0) throw problems.validation(missing.map((key) => ({ path: key, message: 'Required' })));
  return target as Record<K, string>;
}

function editor(ctx: AppContext) {
  return ctx.state.auth!.principal!;
}

/** The permission matrix and its two override layers (`permission:manage`, pinned to platform admins). */
export function permissionRoutes({ overrideStore, overrides, explainer, users }: PermissionRoutesDeps): DomainRoutes {
  /** `query` has `method` and `path`: its schema requires them with `explain`. */
  async function explain(query: z.output<typeof permissionsQuery>) {
    const route = CATALOGUE.routeByKey.get(`${query.method!.toUpperCase()} ${query.path}`);
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
    return explainer.explain(route, { principal, orgRef: query.org });
  }

  function routeMatrix() {
    const snapshot = overrideStore.snapshot;
    return {
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
  }

  return {
    'GET /settings/permissions/actions': route({
      summary: 'Effective action-level matrix: each action, its default, its override, the policy in effect.',
      responses: { 200: { description: 'Actions', schema: actionMatrix } },
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
    }),
    'GET /settings/permissions': route({
      summary:
        'Effective route-level matrix; with `?explain=1&method=&path=[&username=&realm_roles=&org=]`, why a caller would be allowed or refused.',
      query: permissionsQuery,
      responses: { 200: { description: 'Routes, or one explanation', schema: permissionsAnswer } },
      async handle(ctx, { query }) {
        ctx.body = query.explain === undefined ? routeMatrix() : await explain(query);
      },
    }),
    'PUT /settings/permissions/actions/override': route({
      summary: 'Set an action override: `{"action", "policy"}`.',
      body: setActionOverrideBody,
      responses: { 200: { description: 'The change, with the previous policy', schema: actionOverrideChange } },
      async handle(ctx, { body }) {
        const change = await overrides.setAction(body.action, body.policy, editor(ctx), ctx.state.audit);
        ctx.body = { action: body.action, ...change };
      },
    }),
    'DELETE /settings/permissions/actions/override': route({
      summary: 'Clear an action override (`?action=`, or the same as a JSON body).',
      query: actionTarget,
      body: actionTarget,
      responses: { 200: { description: 'The change, with the previous policy', schema: actionOverrideChange } },
      async handle(ctx, { query, body }) {
        const target = targetOf(ctx, query, body, ['action']);
        const change = await overrides.clearAction(target.action, ctx.state.audit);
        ctx.body = { action: target.action, ...change };
      },
    }),
    'PUT /settings/permissions/override': route({
      summary: 'Set a route override: `{"method", "path" (the catalogue pattern), "policy"}`.',
      body: setRouteOverrideBody,
      responses: { 200: { description: 'The change, with the previous policy', schema: routeOverrideChange } },
      async handle(ctx, { body }) {
        const change = await overrides.setRoute(body.method, body.path, body.policy, editor(ctx), ctx.state.audit);
        ctx.body = { method: body.method.toUpperCase(), path: body.path, ...change };
      },
    }),
    'DELETE /settings/permissions/override': route({
      summary: 'Clear a route override (`?method=&path=`, or the same as a JSON body).',
      query: routeTarget,
      body: routeTarget,
      responses: { 200: { description: 'The change, with the previous policy', schema: routeOverrideChange } },
      async handle(ctx, { query, body }) {
        const target = targetOf(ctx, query, body, ['method', 'path']);
        const change = await overrides.clearRoute(target.method, target.path, ctx.state.audit);
        ctx.body = { method: target.method.toUpperCase(), path: target.path, ...change };
      },
    }),
  };
}
