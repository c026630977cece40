import { z } from 'zod';
import { CHANGE_ACTIONS, fieldDiff, planSummary } from './config-exchange.js';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of a platform sync profile's plans, drift, conflicts, apply and export: the configuration
 * exchange engine's plan (config-exchange.ts) with what a profile adds to it (stable change ids,
 * conflicts and their resolutions, destructive changes). docs/platform-sync.md.
 */

export const planPath = z.object({ plan_id: pathId });
export const planFamilyPath = z.object({ plan_id: pathId, family: z.string() });
export const conflictPath = z.object({ profile_id: pathId, change_id: z.string() });

export const RESOLUTIONS = ['take_source', 'keep_target'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export const syncChange = z.object({
  change_id: z
    .string()
    .describe(
      "Stable: the same change of the same versions of the item has the same id in every plan (a digest of family, key, action and both sides' versions)",
    ),
  family: z.string(),
  key: z.string(),
  action: z.enum(CHANGE_ACTIONS),
  diffs: z.array(fieldDiff),
  /** The target item changed locally since the profile's last apply and the source changed it too. */
  conflict: z.boolean(),
  /** A conflict's recorded choice; null while unresolved (and for every change that is no conflict). */
  resolution: z.enum(RESOLUTIONS).nullable(),
  /** Applies only under a destructive authorization (a delete by prune, or a change of a secret). */
  destructive: z.boolean(),
});
export type SyncChange = z.infer<typeof syncChange>;

export const syncPlanSummary = planSummary.extend({
  conflicts: z.number().int().describe('Changes in conflict, resolved or not'),
  unresolved: z.number().int(),
  destructive: z.number().int(),
});

export const syncPlan = z.object({
  id: z.string(),
  profile_id: z.string(),
  profile_revision: z.number().int(),
  org: z.string().nullable().describe('The target organization (null: the platform)'),
  families: z.array(z.string()),
  prune: z.boolean(),
  fingerprint: z.string().describe("The engine's fingerprint of the rows the plan read; an apply runs only while it matches"),
  source_sha256: z.string().describe('SHA-256 of the bundle text the plan read from the source'),
  summary: syncPlanSummary,
  text: z.string().describe('The plan rendered like `terraform plan`'),
  changes: z.array(syncChange),
  unmanaged: z.array(z.object({ family: z.string(), key: z.string() })),
  applied_at: z.string().nullable(),
  created_at: z.string(),
  created_by: z.string().nullable(),
});
export type SyncPlan = z.infer<typeof syncPlan>;

export const syncPlanFamily = z.object({
  plan_id: z.string(),
  family: z.string(),
  changes: z.array(syncChange),
  unmanaged: z.array(z.string()).describe('Keys of current items the source does not name, left alone'),
});
export type SyncPlanFamily = z.infer<typeof syncPlanFamily>;

export const applyBody = z.object({ plan_id: z.uuid().describe('A plan of this profile') }).strict();
export type ApplyBody = z.infer<typeof applyBody>;

export const resolveBody = z.object({ resolution: z.enum(RESOLUTIONS) }).strict();

export const conflictResolution = z.object({
  profile_id: z.string(),
  change_id: z.string(),
  resolution: z.enum(RESOLUTIONS),
  resolved_by: z.string().nullable(),
  resolved_at: z.string(),
});
export type ConflictResolution = z.infer<typeof conflictResolution>;

export const DRIFT_STATES = ['changed', 'deleted'] as const;

export const driftQuery = z.object({ family: z.string().max(100).optional(), ...pageShape }).strict();

export const driftItem = z.object({
  family: z.string(),
  key: z.string(),
  state: z.enum(DRIFT_STATES),
  applied_sha256: z.string(),
  current_sha256: z.string().nullable(),
});

export const drift = z.object({
  profile_id: z.string(),
  last_applied_at: z.string().nullable(),
  items: z.array(driftItem),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type Drift = z.infer<typeof drift>;

export const syncExport = z.object({
  run_id: z.string(),
  yaml: z.string(),
  families: z.array(z.string()),
  org: z.string().nullable(),
});
export type SyncExport = z.infer<typeof syncExport>;
