import type { Knex } from 'knex';
import { lockSiteHierarchy, siteAncestorIds } from './site-hierarchy-repo.js';
import { cleared, SoftDeleteTable, whereLive } from '../../db/soft-delete.js';
import { containsPattern } from './repo-helpers.js';

export interface SiteRow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly parent_id: string | null;
  readonly address: string | null;
  readonly tags: string[];
  readonly provider_id: string | null;
  readonly external_id: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly deleted_at: Date | null;
  readonly deleted_by: string | null;
}

/** The fields an API caller sets. */
export interface SiteFields {
  readonly name: string;
  readonly description: string | null;
  readonly parent_id: string | null;
  readonly address: string | null;
  readonly tags: readonly string[];
}

export interface SiteListFilter {
  readonly orgId: string;
  readonly orgIds: readonly string[];
  readonly q?: string | undefined;
  /** A site id, or null for top-level sites only. */
  readonly parentId?: string | null | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number;
  readonly offset: number;
}

export type SitesTx = Knex.Transaction;

const COLUMNS = [
  'id',
  'org_id',
  'name',
  'description',
  'parent_id',
  'address',
  'tags',
  'provider_id',
  'external_id',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'deleted_at',
  'deleted_by',
] as const;

const SITES = new SoftDeleteTable<SiteRow>('sites', COLUMNS);

function writeFields(fields: Partial<SiteFields>): Record<string, unknown> {
  const row: Record<string, unknown> = { ...fields };
  // pg would send a JS array as a PostgreSQL array literal, not as JSON.
  if (fields.tags !== undefined) row.tags = JSON.stringify(fields.tags);
  return row;
}

/** The `sites` table. Writes take the caller's transaction so the audit entry commits with them. */
export class SitesRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: SitesTx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  /** A live site of one of `orgIds`. */
  async findLive(orgIds: readonly string[], id: string): Promise<SiteRow | undefined> {
    return SITES.live(this.knex).where({ id }).whereIn('org_id', orgIds).first(COLUMNS);
  }

  /** A site of one of `orgIds`, live or not, locked for the rest of the transaction. */
  async lock(trx: SitesTx, orgIds: readonly string[], id: string): Promise<SiteRow | undefined> {
    return trx('sites').where({ id }).whereIn('org_id', orgIds).forUpdate().first(COLUMNS);
  }

  async lockMany(trx: SitesTx, orgIds: readonly string[], ids: readonly string[]): Promise<SiteRow[]> {
    return trx('sites').whereIn('id', ids).whereIn('org_id', orgIds).forUpdate().select(COLUMNS);
  }

  /**
   * A live site of exactly `orgId`, held (FOR SHARE) until the transaction ends: a concurrent delete of
   * it waits, then sees the new child or device and refuses.
   */
  async holdLive(trx: SitesTx, orgId: string, id: string): Promise<SiteRow | undefined> {
    return SITES.live(trx).where({ id, org_id: orgId }).forShare().first(COLUMNS);
  }

  async list(filter: SiteListFilter): Promise<{ rows: SiteRow[]; total: number }> {
    const query = SITES.visible(this.knex, filter);
    if (filter.q) {
      const pattern = containsPattern(filter.q);
      query.andWhere((b) => b.whereILike('name', pattern).orWhereILike('description', pattern).orWhereILike('address', pattern));
    }
    if (filter.parentId === null) query.whereNull('parent_id');
    else if (filter.parentId !== undefined) query.where('parent_id', filter.parentId);
    const [counted] = await query.clone().count<{ n: string | number }[]>('* as n');
    const rows = await query
      .select(COLUMNS)
      .orderBy([{ column: 'name' }, { column: 'id' }])
      .limit(filter.limit)
      .offset(filter.offset);
    return { rows, total: Number(counted?.n ?? 0) };
  }

  /** Every live site of `orgIds`: what the tree is built from. */
  async allLive(orgIds: readonly string[]): Promise<SiteRow[]> {
    return SITES.live(this.knex)
      .whereIn('org_id', orgIds)
      .select(COLUMNS)
      .orderBy([{ column: 'name' }, { column: 'id' }]);
  }

  /** The site's ancestors' ids, nearest first. */
  ancestorIds(trx: SitesTx, id: string): Promise<string[]> {
    return siteAncestorIds(trx, id);
  }

  /** Serializes moves of sites within one organization (`lockSiteHierarchy`). */
  lockHierarchy(trx: SitesTx, orgId: string): Promise<void> {
    return lockSiteHierarchy(trx, orgId);
  }

  /** Which of `names` live sites of the organization hold (other than `exceptId`). */
  async liveNames(trx: SitesTx, orgId: string, names: readonly string[], exceptId?: string): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const query = SITES.live(trx).where({ org_id: orgId }).whereIn('name', names);
    if (exceptId) query.whereNot('id', exceptId);
    return new Set((await query.select('name')).map((r: { name: string }) => r.name));
  }

  async insert(trx: SitesTx, row: SiteFields & { org_id: string; created_by: string | null }): Promise<SiteRow> {
    const [inserted] = await trx('sites')
      .insert({ ...writeFields(row), org_id: row.org_id, created_by: row.created_by, updated_by: row.created_by })
      .returning(COLUMNS);
    return inserted as SiteRow;
  }

  async update(trx: SitesTx, id: string, fields: Partial<SiteFields>, by: string | null): Promise<SiteRow> {
    const [row] = await trx('sites')
      .where({ id })
      .update({ ...writeFields(fields), updated_at: trx.fn.now(), updated_by: by })
      .returning(COLUMNS);
    return row as SiteRow;
  }

  async softDelete(trx: SitesTx, ids: readonly string[], by: string | null): Promise<SiteRow[]> {
    return SITES.markDeleted(trx, ids, by);
  }

  /** Brings sites back; those in `detach` lose a parent that is no longer live. */
  async restore(trx: SitesTx, ids: readonly string[], detach: ReadonlySet<string>, by: string | null): Promise<SiteRow[]> {
    return SITES.restore(trx, ids, by, cleared(trx, 'parent_id', detach));
  }

  /** Removes sites for good: child sites and devices keep existing, detached (ON DELETE SET NULL). */
  async purge(trx: SitesTx, ids: readonly string[]): Promise<void> {
    await SITES.purge(trx, ids);
  }

  /** Of `ids`, those naming live sites of the organization. */
  async liveIdsOfOrg(trx: SitesTx, orgId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: { id: string }[] = await SITES.live(trx).where({ org_id: orgId }).whereIn('id', ids).select('id');
    return new Set(rows.map((r) => r.id));
  }

  /** Live child sites of `parentIds`. */
  async liveChildren(trx: SitesTx, parentIds: readonly string[]): Promise<{ id: string; parent_id: string }[]> {
    if (parentIds.length === 0) return [];
    return SITES.live(trx).whereIn('parent_id', parentIds).select('id', 'parent_id');
  }

  /** How many live devices each of `siteIds` holds (sites holding none are absent). */
  async liveDeviceCounts(trx: SitesTx, siteIds: readonly string[]): Promise<Map<string, number>> {
    if (siteIds.length === 0) return new Map();
    const rows: { site_id: string; n: string | number }[] = await whereLive(trx('devices').whereIn('site_id', siteIds))
      .groupBy('site_id')
      .select('site_id')
      .count('* as n');
    return new Map(rows.map((r) => [r.site_id, Number(r.n)]));
  }
}
