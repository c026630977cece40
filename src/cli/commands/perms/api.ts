import type { ActionRow, Explanation, OverrideChange, RouteRow } from '../../../shared/api/permissions.js';
import type { ApiClient } from '../../http/client.js';

/** The daemon's wire shapes (src/shared/api/permissions.ts); types only, so zod is not loaded. */
export type { ActionRow, Explanation, OverrideChange, RouteRow };

/** The override API as the commands and the interactive view use it. */
export interface PermsApi {
  actions(): Promise<ActionRow[]>;
  setAction(action: string, policy: string): Promise<OverrideChange>;
  clearAction(action: string): Promise<OverrideChange>;
}

const OVERRIDE = '/settings/permissions/actions/override';

export function permsApi(client: ApiClient): PermsApi & {
  routes(): Promise<RouteRow[]>;
  setRoute(method: string, path: string, policy: string): Promise<OverrideChange>;
  clearRoute(method: string, path: string): Promise<OverrideChange>;
} {
  const body = async <T>(promise: Promise<{ body: unknown }>) => (await promise).body as T;
  return {
    actions: async () =>
      (await body<{ actions: ActionRow[] }>(client.request({ method: 'GET', path: '/settings/permissions/actions' }))).actions,
    routes: async () => (await body<{ routes: RouteRow[] }>(client.request({ method: 'GET', path: '/settings/permissions' }))).routes,
    setAction: (action, policy) => body(client.request({ method: 'PUT', path: OVERRIDE, body: { action, policy } })),
    clearAction: (action) => body(client.request({ method: 'DELETE', path: OVERRIDE, query: { action } })),
    setRoute: (method, path, policy) =>
      body(client.request({ method: 'PUT', path: '/settings/permissions/override', body: { method, path, policy } })),
    clearRoute: (method, path) =>
      body(client.request({ method: 'DELETE', path: '/settings/permissions/override', query: { method, path } })),
  };
}

/** "run:view: viewer -> admin" for the stderr line after a change. */
export function describeChange(target: string, change: OverrideChange): string {
  return change.policy === null
    ? `Cleared the override of ${target} (was ${change.previous ?? 'not set'}).`
    : `Set ${target} to ${change.policy} (was ${change.previous ?? 'the default'}).`;
}
