import type { z } from 'zod';
import type { AppContext, BodyMode, ResponseDeclarations, RouteBinding, RouteInput } from './types.js';

/**
 * A route as its domain declares it (fastify-style): its schemas once, from `src/shared/api/<domain>.ts`.
 * `dispatch` validates `params`, `query` and `body` before `handle` runs (422 `validation_failed`, every
 * issue with its path) and hands the parsed values to it; `/openapi.json` is made from the same schemas.
 */
export interface RouteDeclaration<P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | undefined> {
  readonly summary?: string;
  readonly params?: P;
  readonly query?: Q;
  /**
   * The JSON body; a request without one is validated as `{}`. With `bodyMode: 'raw'` (read before the handler)
   * or `'none'` (left unread, for the handler to read from the request) the schema only documents the body: the
   * handler parses it itself (after a signature check, say).
   */
  readonly body?: B;
  /** The body's media type in the OpenAPI document (default application/json): a streamed body names its own. */
  readonly bodyMediaType?: string;
  /** A POST, PUT or PATCH that takes no body says so; the OpenAPI document marks it `x-body: none`. */
  readonly noBody?: true;
  readonly responses: ResponseDeclarations;
  readonly bodyMode?: BodyMode;
  readonly maxBodyBytes?: number;
  /** Checks that come before the body's schema (a required header, fields refused by name), as fastify's preValidation hook. */
  readonly preValidation?: (ctx: AppContext) => void;
  readonly handle: (ctx: AppContext, input: RouteInput<P, Q, B>) => Promise<void> | void;
}

/** Declares a route; the types of `handle`'s input follow from the schemas. */
export function route<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(declaration: RouteDeclaration<P, Q, B>): RouteBinding {
  return declaration as unknown as RouteBinding;
}
