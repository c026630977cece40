import type { SyncPlan, SyncPlanFamily } from '../../../shared/api/platform-sync-plans.js';
import type { PlanRow, ResolutionRow } from './plans-repo.js';

/** A saved plan as answers show it, each conflict with its recorded resolution. */
export function planView(row: PlanRow, resolutions: ReadonlyMap<string, ResolutionRow>, org: string | null): SyncPlan {
  const changes = row.changes.map((change) => ({
    ...change,
    resolution: change.conflict ? (resolutions.get(change.change_id)?.resolution ?? null) : null,
  }));
  const conflicts = changes.filter((c) => c.conflict);
  return {
    id: row.id,
    profile_id: row.profile_id,
    profile_revision: row.profile_revision,
    org,
    families: row.engine_plan.families,
    prune: row.prune,
    fingerprint: row.fingerprint,
    source_sha256: row.source_sha256,
    summary: {
      ...row.summary,
      conflicts: conflicts.length,
      unresolved: conflicts.filter((c) => c.resolution === null).length,
      destructive: changes.filter((c) => c.destructive).length,
    },
    text: row.engine_plan.text,
    changes,
    unmanaged: row.engine_plan.unmanaged,
    applied_at: row.applied_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    created_by: row.created_by,
  };
}

export function planFamilyView(plan: SyncPlan, family: string): SyncPlanFamily {
  return {
    plan_id: plan.id,
    family,
    changes: plan.changes.filter((c) => c.family === family),
    unmanaged: plan.unmanaged.filter((u) => u.family === family).map((u) => u.key),
  };
}
