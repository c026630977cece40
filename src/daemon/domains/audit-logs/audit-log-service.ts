import type { AuditLogEntry, AuditLogPage } from '../../../shared/api/audit-logs.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditLogFilter, AuditLogPosition, AuditLogRepo, AuditLogRow, Tally } from './audit-log-repo.js';

export type { AuditLogEntry, AuditLogPage };

const POSITION_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function iso(value: Date | string): string {
  return new Date(value).toISOString();
}

export function auditLogEntry(row: AuditLogRow): AuditLogEntry {
  const details =
    typeof row.details_json === 'string' ? (JSON.parse(row.details_json) as Record<string, unknown>) : (row.details_json ?? {});
  return {
    id: row.id,
    org_id: row.org_id,
    ts: iso(row.ts),
    event_type: row.event_type,
    actor_sub: row.actor_sub,
    actor_username: row.actor_username,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    action: row.action,
    outcome: row.outcome,
    details,
    client_ip: row.client_ip,
    user_agent: row.user_agent,
  };
}

export function encodeCursor(position: AuditLogPosition): string {
  return Buffer.from(JSON.stringify([position.ts, position.id])).toString('base64url');
}

/** A cursor is opaque to clients but not trusted: anything that is not one of ours is a 422, never a database error. */
export function decodeCursor(cursor: string): AuditLogPosition {
  try {
    const [ts, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof ts === 'string' && POSITION_TS.test(ts) && !Number.isNaN(Date.parse(ts)) && typeof id === 'string' && isUuid(id))
      return { ts, id };
  } catch {
    // falls through to the refusal
  }
  throw problems.validation([{ path: 'cursor', message: 'not a cursor this service issued' }]);
}

/** Reading and pruning the audit trail (`audit_log:view`, `audit_log:cleanup`). */
export class AuditLogService {
  constructor(
    private readonly repo: AuditLogRepo,
    private readonly audit: AuditWriter,
  ) {}

  async list(filter: AuditLogFilter, page: { limit: number; cursor?: string | undefined }): Promise<AuditLogPage> {
    const after = page.cursor ? decodeCursor(page.cursor) : undefined;
    // One row beyond the page says whether another page exists, so the last page never hands out a cursor.
    const rows = await this.repo.list(filter, page.limit + 1, after);
    const items = rows.slice(0, page.limit);
    const last = items.at(-1);
    return {
      items: items.map(auditLogEntry),
      next_cursor: rows.length > page.limit && last ? encodeCursor({ ts: last.position_ts, id: last.id }) : null,
    };
  }

  async get(id: string): Promise<AuditLogEntry> {
    const row = isUuid(id) ? await this.repo.findById(id) : undefined;
    if (!row) throw problems.resourceNotFound('Audit entry');
    return auditLogEntry(row);
  }

  /** The values the list filters can take, with how many entries carry each. */
  async filterOptions(): Promise<{ event_types: Tally[]; outcomes: Tally[]; resource_types: Tally[] }> {
    const [eventTypes, outcomes, resourceTypes] = await Promise.all([
      this.repo.tally('event_type'),
      this.repo.tally('outcome'),
      this.repo.tally('resource_type'),
    ]);
    const known = (tallies: Tally[]) => tallies.filter((t) => t.value !== null);
    return { event_types: eventTypes, outcomes: known(outcomes), resource_types: known(resourceTypes) };
  }

  async stats(range: { since?: Date | undefined; until?: Date | undefined }) {
    const [totals, byEventType, byOutcome] = await Promise.all([
      this.repo.totals(range),
      this.repo.tally('event_type', range),
      this.repo.tally('outcome', range),
    ]);
    return {
      since: range.since?.toISOString() ?? null,
      until: range.until?.toISOString() ?? null,
      total: totals.total,
      oldest: totals.oldest ? iso(totals.oldest) : null,
      newest: totals.newest ? iso(totals.newest) : null,
      by_event_type: byEventType,
      by_outcome: byOutcome,
    };
  }

  /** Deletes entries older than `olderThanDays`; its own entry is written afterwards so that it survives. */
  async cleanup(olderThanDays: number, context?: AuditContext): Promise<{ deleted: number; before: string }> {
    const before = new Date(Date.now() - olderThanDays * 86_400_000);
    const deleted = await this.repo.deleteBefore(before);
    await this.audit.record(context, {
      eventType: 'audit_log.cleanup',
      action: 'audit_log:cleanup',
      resourceType: 'audit_log',
      outcome: 'success',
      // The pruning spans every organization: a platform-level entry, whatever the caller's active one.
      orgId: null,
      details: { deleted, before: before.toISOString(), older_than_days: olderThanDays },
    });
    return { deleted, before: before.toISOString() };
  }
}
