import type { AuditContext } from '../../audit/audit-context.js';
import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';

/** Who acts and where: the active organization, the subject stored in `*_by`, the request's audit context. */
export interface Actor {
  readonly org: { readonly id: string; readonly slug: string };
  readonly sub: string | null;
  readonly audit: AuditContext | undefined;
}

/** What every inventory row has that tenancy and soft delete decide on. */
export interface OwnedRow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly deleted_at: Date | null;
}

export function sharedReadOnly(what: string): Problem {
  return problem('shared_read_only', `This ${what} belongs to the shared organization: it may be read here, changed only there.`);
}

/**
 * Whether a row found among the readable organizations may be written by the active one. A soft-deleted
 * row of the shared organization is invisible to other tenants (their lists never show it), so it
 * answers like a missing one rather than as read-only.
 */
export function ownership(row: OwnedRow | undefined, orgId: string): 'own' | 'shared' | 'missing' {
  if (!row) return 'missing';
  if (row.org_id === orgId) return 'own';
  return row.deleted_at === null ? 'shared' : 'missing';
}

/**
 * The row a single write may change, or the refusal: 404 for a missing or foreign row (and for a
 * soft-deleted one when the operation needs it live), 403 for the shared organization's.
 */
export function writable<R extends OwnedRow>(row: R | undefined, orgId: string, what: string, live: boolean): R {
  const owner = ownership(row, orgId);
  if (owner === 'missing' || (live && row!.deleted_at !== null)) throw notFound(what);
  if (owner === 'shared') throw sharedReadOnly(what);
  return row!;
}

export function notFound(what: string): Problem {
  return problems.resourceNotFound(what.charAt(0).toUpperCase() + what.slice(1));
}

export function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/**
 * JSON text with object keys sorted: jsonb stores keys in its own order, so the same object read back
 * and sent again must still compare equal.
 */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Fields whose values differ, as `{field: {old, new}}` for an `entity.updated` entry. */
export function changes(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields: readonly string[],
): Record<string, { old: unknown; new: unknown }> {
  const changed: Record<string, { old: unknown; new: unknown }> = {};
  for (const field of fields) {
    if (canonical(before[field] ?? null) !== canonical(after[field] ?? null))
      changed[field] = { old: before[field] ?? null, new: after[field] ?? null };
  }
  return changed;
}

/**
 * A change to fields a provider-sourced row takes from its inventory provider; `overlay` names the
 * route for local annotations where the resource has one.
 */
export function providerManaged(fields: readonly string[], overlay?: string): Problem {
  return problem(
    'provider_managed',
    'These fields belong to the inventory provider and change only through provider sync.',
    overlay ? { fields, overlay } : { fields },
  );
}
