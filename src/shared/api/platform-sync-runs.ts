import { z } from 'zod';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of what a platform sync profile does: its destructive authorizations and its sync runs
 * (plans, drift, apply and export join them as they are built). docs/platform-sync.md.
 */

/** Default and longest life of a destructive authorization, in seconds: a break-glass grant, not a standing one. */
export const AUTHORIZATION_DEFAULT_SECONDS = 3600;
export const AUTHORIZATION_MAX_SECONDS = 24 * 3600;

export const authorizationPath = z.object({ profile_id: pathId, authorization_id: pathId });

export const grantAuthorizationBody = z
  .object({
    reason: z.string().trim().min(1).max(2000).describe('Why destructive changes may be applied (kept in the audit log)'),
    expires_in_seconds: z
      .number()
      .int()
      .min(60)
      .max(AUTHORIZATION_MAX_SECONDS)
      .optional()
      .describe(`Life of the authorization; default ${AUTHORIZATION_DEFAULT_SECONDS}, at most ${AUTHORIZATION_MAX_SECONDS}`),
    plan_id: z.uuid().optional().describe("Bind the authorization to one plan of the profile; unset: any of the profile's plans"),
  })
  .strict();
export type GrantAuthorizationBody = z.infer<typeof grantAuthorizationBody>;

export const revokeAuthorizationBody = z.object({ reason: z.string().trim().min(1).max(2000).optional() }).strict();
export type RevokeAuthorizationBody = z.infer<typeof revokeAuthorizationBody>;

export const AUTHORIZATION_STATES = ['active', 'expired', 'revoked'] as const;

export const listAuthorizationsQuery = z.object({ state: z.enum(AUTHORIZATION_STATES).optional(), ...pageShape }).strict();

export const destructiveAuthorization = z.object({
  id: z.string(),
  profile_id: z.string(),
  plan_id: z.string().nullable(),
  reason: z.string(),
  state: z.enum(AUTHORIZATION_STATES),
  granted_by: z.string().nullable(),
  granted_at: z.string(),
  expires_at: z.string(),
  revoked_at: z.string().nullable(),
  revoked_by: z.string().nullable(),
  revoke_reason: z.string().nullable(),
  use_count: z.number().int(),
  last_used_at: z.string().nullable(),
});
export type DestructiveAuthorization = z.infer<typeof destructiveAuthorization>;

export const destructiveAuthorizationList = z.object({
  items: z.array(destructiveAuthorization),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type DestructiveAuthorizationList = z.infer<typeof destructiveAuthorizationList>;

export const SYNC_RUN_KINDS = ['apply', 'export'] as const;
export const SYNC_RUN_STATUSES = ['succeeded', 'failed'] as const;

export const syncRunPath = z.object({ run_id: pathId });

export const listSyncRunsQuery = z
  .object({ kind: z.enum(SYNC_RUN_KINDS).optional(), status: z.enum(SYNC_RUN_STATUSES).optional(), ...pageShape })
  .strict();

export const syncRunCounts = z.object({ created: z.number().int(), updated: z.number().int(), deleted: z.number().int() });

export const syncRun = z.object({
  id: z.string(),
  profile_id: z.string(),
  plan_id: z.string().nullable(),
  kind: z.enum(SYNC_RUN_KINDS),
  status: z.enum(SYNC_RUN_STATUSES),
  /** The correlation id every audit entry of the run carries (`details.correlation_id`). */
  correlation_id: z.string(),
  counts: syncRunCounts,
  authorization_id: z.string().nullable(),
  /** A failed run's problem: `{code, detail}`. */
  error: z.object({ code: z.string(), detail: z.string().nullable() }).nullable(),
  actor_sub: z.string().nullable(),
  actor_username: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});
export type SyncRun = z.infer<typeof syncRun>;

export const syncRunList = z.object({
  items: z.array(syncRun),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type SyncRunList = z.infer<typeof syncRunList>;
