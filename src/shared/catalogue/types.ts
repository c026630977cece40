import type { Policy } from '../policy/policies.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A route as the catalogue writes it: `METHOD /path`, parameters in braces (`/runs/{run_id}`). */
export type RouteSpec = `${HttpMethod} /${string}`;

/** One permission action with its default policy and every route bound to it. */
export interface ActionDefinition {
  /** `resource:verb`. */
  readonly action: string;
  /** The default policy; `disabled` is never a default. */
  readonly policy: Policy;
  /** What the catalogue says about the action beyond its routes. */
  readonly note?: string;
  readonly routes: readonly RouteSpec[];
}

/** One method + path of the catalogue with the action it belongs to. */
export interface CatalogueRoute {
  /** `METHOD /path`, unique across the catalogue. */
  readonly key: RouteSpec;
  readonly method: HttpMethod;
  /** The path pattern exactly as the catalogue writes it. */
  readonly path: string;
  readonly action: string;
  readonly defaultPolicy: Policy;
  /** Names of the `{param}` segments, in order. */
  readonly params: readonly string[];
}
