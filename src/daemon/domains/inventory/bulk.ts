import { ownership, type OwnedRow } from './access.js';

/**
 * Per-id outcome of a bulk request. `ok`: applied; `unchanged`: already in the asked state (restoring a
 * live row); `not_found`: unknown, another organization's, or not in a state the operation applies to
 * (deleting a deleted row); `shared_read_only`: the shared organization's; `conflict`: restoring would
 * duplicate a live name; `in_use`: a site that still has live child sites or devices.
 */
export type BulkStatus = 'ok' | 'unchanged' | 'not_found' | 'shared_read_only' | 'conflict' | 'in_use';

export interface BulkResult {
  readonly id: string;
  readonly status: BulkStatus;
}

/** Which rows an operation applies to: live ones (delete), deleted ones (restore), or either (purge). */
export type Applies = 'live' | 'deleted' | 'any';

/** Ids in the order given, each once. */
export function distinct(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/**
 * Sorts the rows found for a bulk request into those the operation may apply to (own organization, right
 * state) and the verdicts for all others. Operation-specific checks then move candidates to a verdict.
 */
export function triage<R extends OwnedRow>(
  ids: readonly string[],
  rows: readonly R[],
  orgId: string,
  applies: Applies,
): { candidates: R[]; verdicts: Map<string, BulkStatus> } {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const candidates: R[] = [];
  const verdicts = new Map<string, BulkStatus>();
  for (const id of ids) {
    const row = byId.get(id);
    const owner = ownership(row, orgId);
    if (owner === 'missing') verdicts.set(id, 'not_found');
    else if (owner === 'shared') verdicts.set(id, 'shared_read_only');
    else if (applies === 'live' && row!.deleted_at !== null) verdicts.set(id, 'not_found');
    else if (applies === 'deleted' && row!.deleted_at === null) verdicts.set(id, 'unchanged');
    else candidates.push(row!);
  }
  return { candidates, verdicts };
}

/** The answer: one result per distinct id, in the order given. */
export function results(ids: readonly string[], verdicts: ReadonlyMap<string, BulkStatus>): { results: BulkResult[] } {
  return { results: ids.map((id) => ({ id, status: verdicts.get(id) ?? 'ok' })) };
}

/**
 * Restoring brings a name back among the live ones: a candidate whose name a live row (or an earlier
 * candidate of the same request) already holds is a `conflict`. Answers the candidates that may proceed.
 */
export function withoutNameClashes<R extends OwnedRow>(
  candidates: readonly R[],
  liveNames: ReadonlySet<string>,
  verdicts: Map<string, BulkStatus>,
): R[] {
  const taken = new Set(liveNames);
  const proceed: R[] = [];
  for (const row of candidates) {
    if (taken.has(row.name)) verdicts.set(row.id, 'conflict');
    else {
      taken.add(row.name);
      proceed.push(row);
    }
  }
  return proceed;
}
