import { z } from 'zod';

/** Wire schemas of the permission matrix and its overrides (`/settings/permissions…`): the daemon validates and documents with them, the CLI's types are inferred from them. */

const action = z.string().min(1).max(100);
const method = z.string().min(1).max(10);
const path = z.string().min(1).max(500);
const policy = z.string().min(1).max(50);

export const setActionOverrideBody = z.object({ action, policy }).strict();
/** `path` is the catalogue pattern (`/runs/{run_id}`). */
export const setRouteOverrideBody = z.object({ method, path, policy }).strict();

/**
 * The target of a DELETE, in the query string or, where a client sends one, a JSON body (the body wins).
 * Each place is checked for what it holds; that the chosen one names the whole target is checked after.
 */
export const actionTarget = z.object({ action: action.optional() }).strict();
export const routeTarget = z.object({ method: method.optional(), path: path.optional() }).strict();

/** The matrix takes no query; `?explain=1&method=&path=[&username=&realm_roles=&org=]` asks for one explanation instead. */
export const permissionsQuery = z
  .object({
    explain: z.literal(['1', 'true']).optional(),
    method: method.optional(),
    path: path.optional(),
    username: z.string().min(1).max(255).optional(),
    realm_roles: z.string().max(500).optional().describe('Comma-separated realm roles of the hypothetical caller.'),
    org: z.string().min(1).max(100).optional(),
  })
  .strict()
  .superRefine((query, ctx) => {
    if (query.explain === undefined) {
      const stray = Object.keys(query);
      if (stray.length > 0) ctx.addIssue({ code: 'unrecognized_keys', keys: stray, input: query, message: 'give explain=1 to explain' });
      return;
    }
    for (const key of ['method', 'path'] as const) {
      if (query[key] === undefined)
        ctx.addIssue({ code: 'invalid_type', expected: 'string', input: undefined, path: [key], message: 'Required' });
    }
  });

const routeScope = z.enum(['org', 'platform']);
const policySource = z.enum(['default', 'action_override', 'route_override']);

/** A row of `GET /settings/permissions/actions`. */
export const actionRow = z.object({
  action: z.string(),
  default_policy: z.string(),
  override: z.string().nullable(),
  effective_policy: z.string(),
  overridable: z.boolean(),
  /** How many routes the action covers. */
  routes: z.number().int(),
  updated_by: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type ActionRow = z.infer<typeof actionRow>;
export const actionMatrix = z.object({ actions: z.array(actionRow) });

/** A row of `GET /settings/permissions`. */
export const routeRow = z.object({
  method: z.string(),
  path: z.string(),
  action: z.string(),
  scope: routeScope,
  default_policy: z.string(),
  action_override: z.string().nullable(),
  route_override: z.string().nullable(),
  effective_policy: z.string(),
  source: policySource,
});
export type RouteRow = z.infer<typeof routeRow>;
export const routeMatrix = z.object({ routes: z.array(routeRow) });

/** Why a caller would be allowed or refused a route: the request path's decision with its workings. */
export const explanation = z.object({
  route: z.object({ method: z.string(), path: z.string(), action: z.string() }),
  scope: routeScope,
  policy: z.string(),
  source: policySource,
  default_policy: z.string(),
  organization: z.object({ id: z.string(), slug: z.string(), role: z.string().nullable() }).nullable(),
  allowed: z.boolean(),
  reason: z.string(),
  required_roles: z.array(z.string()),
});
export type Explanation = z.infer<typeof explanation>;

/** The matrix or, with `explain`, one explanation. */
export const permissionsAnswer = z.union([routeMatrix, explanation]);

/** What a PUT or DELETE on an override changed: the previous policy and the new one (null when cleared). */
const change = { previous: z.string().nullable(), policy: z.string().nullable() };
export const actionOverrideChange = z.object({ action: z.string(), ...change });
export const routeOverrideChange = z.object({ method: z.string(), path: z.string(), ...change });
/** Either kind, as a client that handles both reads it. */
export const overrideChange = z.object({
  action: z.string().optional(),
  method: z.string().optional(),
  path: z.string().optional(),
  ...change,
});
export type OverrideChange = z.infer<typeof overrideChange>;
