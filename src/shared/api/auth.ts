import { z } from 'zod';

/** Wire schemas of `/auth/*`: sign-in configuration, the caller, its capabilities and stream tickets. */

export const authConfig = z.object({
  /** Tells a client it talks to svc before it sends or stores a credential. */
  service: z.literal('svc'),
  version: z.string(),
  auth_enabled: z.boolean(),
  issuer: z.string().nullable(),
  discovery_url: z.string().nullable(),
  client_id: z.string(),
  cli_client_id: z.string(),
  audience: z.string(),
  scopes: z.array(z.string()),
});
export type AuthConfig = z.infer<typeof authConfig>;

/** A principal as the API shows it (`/auth/me`, ticket validation). */
export const principalWire = z.object({
  sub: z.string(),
  username: z.string(),
  email: z.string(),
  realm_roles: z.array(z.string()),
  client_roles: z.array(z.string()),
  groups: z.array(z.string()),
  is_service_account: z.boolean(),
});

export const membership = z.object({
  org_id: z.string(),
  slug: z.string(),
  name: z.string(),
  role: z.string(),
  source: z.enum(['manual', 'idp']),
});

export const authMe = principalWire.extend({
  auth_method: z.string(),
  /** Null until the user's first sign-in has recorded it (development mode's principal has none). */
  user_id: z.string().nullable(),
  /** Active organizations only; a personal access token sees its own organization alone. */
  memberships: z.array(membership),
  /** Present when the credential is a personal access token. */
  token: z.object({ id: z.string(), org_id: z.string() }).optional(),
});
export type AuthMe = z.infer<typeof authMe>;

export const capabilities = z.object({
  /** The `X-Org-Id` the caller sent, or null: the platform default organization. */
  organization: z.string().nullable(),
  actions: z.array(
    z.object({
      action: z.string(),
      policy: z.string(),
      allowed: z.boolean(),
      routes_allowed: z.number().int(),
      routes_total: z.number().int(),
      reason: z.string(),
    }),
  ),
});
export type Capabilities = z.infer<typeof capabilities>;

export const streamTicket = z.object({ ticket: z.string(), expires_at: z.string(), expires_in: z.number().int() });

/**
 * `?ticket=`: anything but one string (absent, repeated) counts as no ticket, which is refused 401
 * `invalid_ticket` like an unknown one, not as a malformed query.
 */
export const ticketQuery = z.object({ ticket: z.string().optional().catch(undefined) });

export const redeemedTicket = z.object({
  valid: z.literal(true),
  principal: principalWire,
  auth_method: z.string(),
  org_id: z.string().nullable(),
});
