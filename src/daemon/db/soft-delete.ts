import type { Knex } from 'knex';
import { Table, type Db } from './table.js';

/** Which rows a listing shows: live rows of every readable organization, and the active one's deleted rows when asked. */
export interface Visibility {
  /** The active organization. */
  readonly orgId: string;
  /** The organizations whose rows may be read: the active one, and the shared one where the resource is shareable. */
  readonly orgIds: readonly string[];
  readonly includeDeleted: boolean;
}

/** `deleted_at IS NULL` on `query`: its live rows (those of `alias` in a join). */
export function whereLive<Q extends Knex.QueryBuilder>(query: Q, alias?: string): Q {
  return query.whereNull(alias ? `${alias}.deleted_at` : 'deleted_at') as Q;
}

/**
 * One table whose rows are soft-deleted: `deleted_at` and `deleted_by` mark a row deleted, which keeps it
 * (restorable, listed only where asked) until it is purged. Every soft-deletable resource (sites, devices,
 * flows, webhook endpoints, runs, and those to come) reads and writes that state through here, so
 * "deleted" means one thing. The writes take many ids (bulk routes pass theirs, single routes one), answer
 * the rows changed with the table's columns, and send no statement for no ids. Inserts and plain updates
 * come from `Table`.
 *
 * Marking stamps only `deleted_at`/`deleted_by`: they say who deleted the row and when. Restoring clears
 * them and stamps `updated_at`/`updated_by`, which would otherwise lose who brought the row back.
 */
export class SoftDeleteTable<Row> extends Table<Row> {
  /** The table's live rows. */
  live(db: Db): Knex.QueryBuilder {
    return whereLive(db(this.table));
  }

  /**
   * The rows a caller active in `orgId` may list: live rows of every readable organization; with
   * `includeDeleted`, also the soft-deleted rows of its own organization (never the shared organization's:
   * a tenant can neither see why they went nor restore them).
   */
  visible(db: Db, { orgId, orgIds, includeDeleted }: Visibility): Knex.QueryBuilder {
    return db(this.table).where((b) => {
      if (includeDeleted) b.where('org_id', orgId).orWhere((shared) => whereLive(shared.whereIn('org_id', orgIds)));
      else whereLive(b.whereIn('org_id', orgIds));
    });
  }

  /** Marks the rows deleted by `by`, now; `also` sets other columns in the same statement. */
  async markDeleted(db: Db, ids: readonly string[], by: string | null, also: Record<string, unknown> = {}): Promise<Row[]> {
    if (ids.length === 0) return [];
    const rows: unknown[] = await db(this.table)
      .whereIn('id', ids)
      .update({ ...also, deleted_at: db.fn.now(), deleted_by: by })
      .returning(this.columns);
    return rows as Row[];
  }

  /** Brings the rows back, a change by `by`; `also` sets other columns in the same statement (see `cleared`). */
  async restore(db: Db, ids: readonly string[], by: string | null, also: Record<string, unknown> = {}): Promise<Row[]> {
    if (ids.length === 0) return [];
    const rows: unknown[] = await db(this.table)
      .whereIn('id', ids)
      .update({ ...also, deleted_at: null, deleted_by: null, updated_at: db.fn.now(), updated_by: by })
      .returning(this.columns);
    return rows as Row[];
  }

  /** Removes the rows for good, live or deleted (what refers to them goes as the foreign keys say). */
  async purge(db: Db, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await db(this.table).whereIn('id', ids).delete();
  }
}

/**
 * For `also` of a bulk write: `column` becomes NULL on the rows in `ids` and stays as it is on the others,
 * so one statement restores rows of which some let go of a link whose target is gone.
 */
export function cleared(db: Db, column: string, ids: ReadonlySet<string>): Record<string, Knex.Raw> | Record<string, never> {
  if (ids.size === 0) return {};
  return { [column]: db.raw('CASE WHEN id = ANY(?::uuid[]) THEN NULL ELSE ?? END', [[...ids], column]) };
}
