import type { Knex } from 'knex';
import type { AuditFields } from '../../audit/audit-repo.js';

export interface AuditLogRow extends AuditFields {
  readonly id: string;
  readonly ts: Date | string;
  readonly details_json: Record<string, unknown> | string | null;
  /** `ts` in UTC to the microsecond: a JS Date keeps milliseconds only, too coarse for a keyset position. */
  readonly position_ts: string;
}

export interface AuditLogFilter {
  readonly eventTypes?: readonly string[] | undefined;
  readonly actor?: string | undefined;
  readonly resourceType?: string | undefined;
  readonly resourceId?: string | undefined;
  readonly outcome?: string | undefined;
  readonly orgId?: string | undefined;
  readonly since?: Date | undefined;
  readonly until?: Date | undefined;
}

/** A place in the (ts desc, id desc) order: the next page starts strictly after it. */
export interface AuditLogPosition {
  readonly ts: string;
  readonly id: string;
}

export interface Tally {
  readonly value: string | null;
  readonly count: number;
}

const COLUMNS = [
  'id',
  'org_id',
  'ts',
  'event_type',
  'actor_sub',
  'actor_username',
  'resource_type',
  'resource_id',
  'action',
  'outcome',
  'details_json',
  'client_ip',
  'user_agent',
];

export class AuditLogRepo {
  constructor(private readonly knex: Knex) {}

  #columns() {
    return [...COLUMNS, this.knex.raw(`to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_ts`)];
  }

  #filtered(filter: AuditLogFilter) {
    const query = this.knex('audit_logs');
    if (filter.eventTypes?.length) query.whereIn('event_type', [...filter.eventTypes]);
    if (filter.actor) query.where((q) => q.where('actor_sub', filter.actor!).orWhere('actor_username', filter.actor!));
    if (filter.resourceType) query.where('resource_type', filter.resourceType);
    if (filter.resourceId) query.where('resource_id', filter.resourceId);
    if (filter.outcome) query.where('outcome', filter.outcome);
    if (filter.orgId) query.where('org_id', filter.orgId);
    if (filter.since) query.where('ts', '>=', filter.since);
    if (filter.until) query.where('ts', '<', filter.until);
    return query;
  }

  /** Up to `limit` rows after `after`, newest first. */
  async list(filter: AuditLogFilter, limit: number, after?: AuditLogPosition): Promise<AuditLogRow[]> {
    const query = this.#filtered(filter)
      .select(this.#columns())
      .orderBy([
        { column: 'ts', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit);
    if (after) query.whereRaw('(ts, id) < (?::timestamptz, ?::uuid)', [after.ts, after.id]);
    return query;
  }

  async findById(id: string): Promise<AuditLogRow | undefined> {
    return this.knex('audit_logs').where({ id }).first(this.#columns());
  }

  /** Entries per distinct value of `column`, nulls included, by value. */
  async tally(column: 'event_type' | 'outcome' | 'resource_type', filter: AuditLogFilter = {}): Promise<Tally[]> {
    const rows = (await this.#filtered(filter).select(`${column} as value`).count('* as count').groupBy(column).orderBy(column)) as {
      value: string | null;
      count: string | number;
    }[];
    return rows.map((r) => ({ value: r.value, count: Number(r.count) }));
  }

  async totals(filter: AuditLogFilter): Promise<{ total: number; oldest: Date | string | null; newest: Date | string | null }> {
    const row = (await this.#filtered(filter).count('* as total').min('ts as oldest').max('ts as newest').first()) as {
      total: string | number;
      oldest: Date | string | null;
      newest: Date | string | null;
    };
    return { total: Number(row.total), oldest: row.oldest, newest: row.newest };
  }

  async deleteBefore(before: Date): Promise<number> {
    // knex-pglite reports the command as `DEL`, which knex does not take for a delete, so there the
    // raw result comes back instead of the count.
    const result = (await this.knex('audit_logs').where('ts', '<', before).delete()) as number | { rowCount?: number | null };
    return typeof result === 'number' ? result : Number(result.rowCount ?? 0);
  }
}
