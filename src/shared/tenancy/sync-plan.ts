import { roleStrength } from './org-roles.js';

export interface ExistingMembership {
  readonly orgId: string;
  readonly role: string;
  readonly source: 'manual' | 'idp';
}

export interface CandidateMapping {
  readonly id: string;
  readonly orgId: string;
  readonly claim: string;
  readonly value: string;
  readonly role: string;
}

export type PlannedChange =
  | { readonly kind: 'add'; readonly orgId: string; readonly role: string; readonly mappingId: string }
  | { readonly kind: 'upgrade'; readonly orgId: string; readonly from: string; readonly role: string; readonly mappingId: string }
  | { readonly kind: 'downgrade'; readonly orgId: string; readonly from: string; readonly role: string; readonly mappingId: string }
  | { readonly kind: 'remove'; readonly orgId: string; readonly role: string }
  | {
      readonly kind: 'untouched';
      readonly orgId: string;
      readonly role: string;
      readonly source: 'manual' | 'idp';
      readonly mappingId?: string;
      readonly why: string;
    };

export interface SyncInput {
  readonly memberships: readonly ExistingMembership[];
  /** Active mappings whose value is among the user's claim values (the caller filters). */
  readonly matched: readonly CandidateMapping[];
  readonly authoritative: boolean;
}

/**
 * What login-time sync does, as data: desired = organization -> strongest matching role (the first
 * mapping of that strength drives it); `idp` rows are added or upgraded; `manual` rows are never
 * touched; in authoritative mode an `idp` row holds exactly what the claims justify: removed when
 * nothing matches, lowered when only a weaker mapping does. Additive mode only adds and upgrades.
 * The same function serves the real login and the preview, so they cannot disagree.
 */
export function planSync({ memberships, matched, authoritative }: SyncInput): PlannedChange[] {
  const desired = new Map<string, CandidateMapping>();
  for (const mapping of [...matched].sort((a, b) => a.id.localeCompare(b.id))) {
    const current = desired.get(mapping.orgId);
    if (!current || roleStrength(mapping.role) > roleStrength(current.role)) desired.set(mapping.orgId, mapping);
  }
  const changes: PlannedChange[] = [];
  const existing = new Map(memberships.map((m) => [m.orgId, m]));
  for (const [orgId, mapping] of desired) {
    const row = existing.get(orgId);
    if (!row) changes.push({ kind: 'add', orgId, role: mapping.role, mappingId: mapping.id });
    else if (row.source === 'manual')
      changes.push({
        kind: 'untouched',
        orgId,
        role: row.role,
        source: 'manual',
        mappingId: mapping.id,
        why: 'manual memberships are never changed by sync',
      });
    else if (roleStrength(mapping.role) > roleStrength(row.role))
      changes.push({ kind: 'upgrade', orgId, from: row.role, role: mapping.role, mappingId: mapping.id });
    else if (roleStrength(mapping.role) === roleStrength(row.role))
      changes.push({
        kind: 'untouched',
        orgId,
        role: row.role,
        source: 'idp',
        mappingId: mapping.id,
        why: 'already holds the mapped role',
      });
    else if (authoritative) changes.push({ kind: 'downgrade', orgId, from: row.role, role: mapping.role, mappingId: mapping.id });
    else
      changes.push({
        kind: 'untouched',
        orgId,
        role: row.role,
        source: 'idp',
        mappingId: mapping.id,
        why: 'additive mode keeps the stronger role',
      });
  }
  for (const row of memberships) {
    if (desired.has(row.orgId)) continue;
    if (row.source === 'idp' && authoritative) changes.push({ kind: 'remove', orgId: row.orgId, role: row.role });
    else
      changes.push({
        kind: 'untouched',
        orgId: row.orgId,
        role: row.role,
        source: row.source,
        why: row.source === 'manual' ? 'manual memberships are never changed by sync' : 'additive mode keeps idp memberships',
      });
  }
  return changes;
}
