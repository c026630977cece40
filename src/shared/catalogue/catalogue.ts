import { isPolicy } from '../policy/policies.js';
import { allActions } from './actions/index.js';
import { HTTP_METHODS, type ActionDefinition, type CatalogueRoute, type HttpMethod, type RouteSpec } from './types.js';

const ACTION_NAME = /^[a-z][a-z_]*:[a-z][a-z_]*$/;
const PATH_SEGMENT = /^(?:[A-Za-z0-9._-]+|\{[a-z_]+\})$/;

/** The catalogue, checked and indexed once; every consumer (daemon, CLI, tests) reads it from here. */
export interface Catalogue {
  readonly actions: readonly ActionDefinition[];
  readonly routes: readonly CatalogueRoute[];
  readonly actionByName: ReadonlyMap<string, ActionDefinition>;
  readonly routeByKey: ReadonlyMap<string, CatalogueRoute>;
}

export function parseRouteSpec(spec: string): { method: HttpMethod; path: string } {
  const space = spec.indexOf(' ');
  const method = spec.slice(0, space) as HttpMethod;
  const path = spec.slice(space + 1);
  if (space < 0 || !HTTP_METHODS.includes(method)) throw new TypeError(`route "${spec}": unknown method`);
  if (!path.startsWith('/') || path.length < 2 || path.endsWith('/')) throw new TypeError(`route "${spec}": bad path`);
  for (const segment of path.slice(1).split('/')) {
    if (!PATH_SEGMENT.test(segment)) throw new TypeError(`route "${spec}": bad path segment "${segment}"`);
  }
  return { method, path };
}

export function paramNames(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] as string);
}

/**
 * Builds the catalogue from action definitions, refusing anything the specification forbids:
 * malformed names, unknown or `disabled` default policies, and a method + path bound to two actions.
 */
export function buildCatalogue(actions: readonly ActionDefinition[]): Catalogue {
  const actionByName = new Map<string, ActionDefinition>();
  const routeByKey = new Map<string, CatalogueRoute>();
  const routes: CatalogueRoute[] = [];
  for (const definition of actions) {
    if (!ACTION_NAME.test(definition.action)) throw new TypeError(`action "${definition.action}": bad name`);
    if (actionByName.has(definition.action)) throw new TypeError(`action "${definition.action}": defined twice`);
    if (!isPolicy(definition.policy) || definition.policy === 'disabled') {
      throw new TypeError(`action "${definition.action}": "${definition.policy}" cannot be a default policy`);
    }
    if (definition.routes.length === 0) throw new TypeError(`action "${definition.action}": no routes`);
    actionByName.set(definition.action, definition);
    for (const spec of definition.routes) {
      const { method, path } = parseRouteSpec(spec);
      const key = `${method} ${path}` as RouteSpec;
      const taken = routeByKey.get(key);
      if (taken) throw new TypeError(`route "${key}": bound to both ${taken.action} and ${definition.action}`);
      const route: CatalogueRoute = {
        key,
        method,
        path,
        action: definition.action,
        defaultPolicy: definition.policy,
        params: paramNames(path),
      };
      routeByKey.set(key, route);
      routes.push(route);
    }
  }
  return { actions, routes, actionByName, routeByKey };
}

/** The project's catalogue: 109 actions and their 348 routes, checked when the module loads. */
export const CATALOGUE: Catalogue = buildCatalogue(allActions);
