import type { AppContext, RouteBinding } from './types.js';
import { validate } from './validate.js';

const NO_QUERY = Object.freeze({});

/** The request's path parameters, query and body, each parsed by the route's schema where it declares one. */
export function parseInput(binding: RouteBinding, ctx: AppContext): { params: unknown; query: unknown; body: unknown } {
  return {
    params: binding.params ? validate(binding.params, ctx.state.params, 'path') : ctx.state.params,
    query: binding.query ? validate(binding.query, ctx.querystring === '' ? NO_QUERY : ctx.query, 'query') : undefined,
    // A body the handler reads itself ('raw', 'none') is only documented by the schema.
    body: binding.body && (binding.bodyMode ?? 'json') === 'json' ? validate(binding.body, ctx.state.body ?? {}) : undefined,
  };
}

/** Checks a handler's answer against the route's declared responses; made only when SERVICE_CHECK_RESPONSES is on. */
export type ResponseCheck = (binding: RouteBinding, ctx: AppContext) => void;

/** A route answered with a status it does not declare, or a body its schema does not describe. */
export class UndeclaredResponseError extends Error {
  override name = 'UndeclaredResponseError';
}

/**
 * The answer as the client receives it (JSON text parsed back, so dates are strings) must satisfy the
 * schema of its status: keeps the OpenAPI document and the CLI's types, both made from the schemas, true.
 */
export function checkResponse(binding: RouteBinding, ctx: AppContext): void {
  const declared = binding.responses[ctx.status];
  if (!declared)
    throw new UndeclaredResponseError(`${ctx.method} ${ctx.state.mounted!.route.path} answered ${ctx.status}, which it does not declare`);
  if (!declared.schema || (declared.contentType ?? 'application/json') !== 'application/json') return;
  const body: unknown = ctx.body;
  if (body === null || body === undefined || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
  const result = declared.schema.safeParse(JSON.parse(JSON.stringify(body)));
  if (!result.success) {
    throw new UndeclaredResponseError(
      `${ctx.method} ${ctx.state.mounted!.route.path} answered ${ctx.status} with a body its schema does not describe: ${JSON.stringify(result.error.issues.slice(0, 5))}`,
    );
  }
}
