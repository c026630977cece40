import type { FlowTargetRole } from '../../../shared/flows/definition.js';
import { isUuid } from '../../../shared/ids.js';

export interface TargetIssue {
  readonly path: string;
  readonly message: string;
}

/** Every device id named, all roles together, as the cap counts them (before duplicates are dropped). */
export function countTargets(targets: Readonly<Record<string, readonly string[]>>): number {
  let total = 0;
  for (const ids of Object.values(targets)) total += ids.length;
  return total;
}

/**
 * Targets against the version's target roles: each role declared, each id a UUID, each role within
 * `min_devices`..`max_devices` (a declared role left out counts as zero devices). A device named twice
 * in one role counts once and is kept once: a webhook may name it by UUID and by provider reference.
 */
export function checkTargets(
  roles: readonly FlowTargetRole[],
  targets: Readonly<Record<string, readonly string[]>>,
): { ok: true; targets: Record<string, string[]> } | { ok: false; issues: TargetIssue[] } {
  const issues: TargetIssue[] = [];
  const declared = new Map(roles.map((r) => [r.name, r]));
  const normalized: Record<string, string[]> = {};
  const malformed = new Set<string>();
  for (const [role, ids] of Object.entries(targets)) {
    if (!declared.has(role)) {
      issues.push({ path: `targets.${role}`, message: 'the flow declares no target role of this name' });
      continue;
    }
    const bad = ids.findIndex((id) => !isUuid(id));
    if (bad >= 0) {
      issues.push({ path: `targets.${role}[${bad}]`, message: 'must be a device UUID' });
      malformed.add(role);
      continue;
    }
    normalized[role] = [...new Set(ids.map((id) => id.toLowerCase()))];
  }
  for (const role of roles) {
    if (malformed.has(role.name)) continue;
    const count = normalized[role.name]?.length ?? 0;
    const min = role.min_devices ?? 0;
    if (count < min) issues.push({ path: `targets.${role.name}`, message: `needs at least ${min} device(s), got ${count}` });
    if (role.max_devices !== undefined && role.max_devices !== null && count > role.max_devices) {
      issues.push({ path: `targets.${role.name}`, message: `takes at most ${role.max_devices} device(s), got ${count}` });
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, targets: normalized };
}
