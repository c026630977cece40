import type { Knex } from 'knex';
import type { OutcomeCounts } from '../../../shared/api/inventory-providers.js';
import { canonicalJson } from './canonical-json.js';

/** The imported table a page is written to, and the columns a provider owns there (with their SQL types). */
export interface ImportTable {
  readonly table: 'sites' | 'devices' | 'inventory_objects';
  readonly columns: Readonly<Record<string, 'text' | 'jsonb' | 'uuid' | 'timestamptz'>>;
  /** Live names are unique in the organization (sites, devices): a name a local row holds is skipped. */
  readonly uniqueNames: boolean;
  /** Has `created_by`/`updated_by`. */
  readonly stamped: boolean;
  /** Columns fixing which rows the page is about beside the provider (an object type). */
  readonly scope?: Readonly<Record<string, string>>;
}

/** One provider item as the table's column values (jsonb values as JavaScript values). */
export interface ImportItem {
  readonly external_id: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/** Who imports: the organization, the provider id the rows carry, the pass marker, the acting subject. */
export interface ImportScope {
  readonly orgId: string;
  readonly providerId: string;
  readonly seenAt: Date;
  readonly by: string | null;
}

interface Existing {
  id: string;
  external_id: string;
  deleted_at: Date | null;
  [column: string]: unknown;
}

/**
 * Writes pages of a provider's items into the imported tables: creates what is new, updates what
 * changed, restores what had gone stale (or been deleted here), stamps the pass marker on every row
 * seen. Four statements a page at most, whatever its size: look up, insert, update, touch.
 */
export class ImportRepo {
  async apply(trx: Knex.Transaction, spec: ImportTable, scope: ImportScope, items: readonly ImportItem[]): Promise<Partial<OutcomeCounts>> {
    const byExternal = new Map(items.map((item) => [item.external_id, item]));
    const unique = [...byExternal.values()];
    const columns = Object.keys(spec.columns);
    const existing = await this.existing(trx, spec, scope, [...byExternal.keys()], columns);
    const taken = spec.uniqueNames ? await this.namesTaken(trx, spec, scope, unique) : new Set<string>();
    const inserts: Record<string, unknown>[] = [];
    const changes: Record<string, unknown>[] = [];
    const touched: string[] = [];
    const counts = { created: 0, updated: 0, restored: 0, unchanged: 0, skipped: 0 };
    const claimed = new Set<string>();
    for (const item of unique) {
      const row = existing.get(item.external_id);
      const name = String(item.values.name);
      if (spec.uniqueNames && (taken.has(`${name}\u0000${item.external_id}`) || claimed.has(name))) {
        counts.skipped++;
        continue;
      }
      claimed.add(name);
      if (!row) {
        inserts.push(this.insertRow(spec, scope, item));
        counts.created++;
      } else if (row.deleted_at !== null) {
        changes.push({ id: row.id, ...item.values });
        counts.restored++;
      } else if (columns.some((column) => canonicalJson(row[column]) !== canonicalJson(item.values[column] ?? null))) {
        changes.push({ id: row.id, ...item.values });
        counts.updated++;
      } else {
        touched.push(row.id);
        counts.unchanged++;
      }
    }
    if (inserts.length > 0) await trx(spec.table).insert(inserts);
    if (changes.length > 0) await this.update(trx, spec, scope, changes);
    if (touched.length > 0) await trx(spec.table).whereIn('id', touched).update({ provider_seen_at: scope.seenAt });
    return counts;
  }

  /** The live imported sites of these provider ids, by provider id (a device's site). */
  async siteIds(trx: Knex.Transaction, scope: ImportScope, externalIds: readonly string[]): Promise<Map<string, string>> {
    if (externalIds.length === 0) return new Map();
    const rows = (await trx('sites')
      .where({ org_id: scope.orgId, provider_id: scope.providerId })
      .whereNull('deleted_at')
      .whereRaw('external_id = ANY(?::text[])', [[...new Set(externalIds)]])
      .select('id', 'external_id')) as { id: string; external_id: string }[];
    return new Map(rows.map((row) => [row.external_id, row.id]));
  }

  /** The provider's rows for these external ids, a live one before any deleted one of the same id. */
  private async existing(
    trx: Knex.Transaction,
    spec: ImportTable,
    scope: ImportScope,
    externalIds: readonly string[],
    columns: readonly string[],
  ): Promise<Map<string, Existing>> {
    if (externalIds.length === 0) return new Map();
    const rows = (await trx(spec.table)
      .where({ org_id: scope.orgId, provider_id: scope.providerId, ...spec.scope })
      .whereRaw('external_id = ANY(?::text[])', [[...externalIds]])
      .orderByRaw('deleted_at IS NOT NULL, deleted_at DESC')
      .select('id', 'external_id', 'deleted_at', ...columns)) as Existing[];
    const map = new Map<string, Existing>();
    for (const row of rows) if (!map.has(row.external_id)) map.set(row.external_id, row);
    return map;
  }

  /** `name\0external_id` of each item whose name a live row other than its own holds. */
  private async namesTaken(
    trx: Knex.Transaction,
    spec: ImportTable,
    scope: ImportScope,
    items: readonly ImportItem[],
  ): Promise<Set<string>> {
    const names = items.map((item) => String(item.values.name));
    if (names.length === 0) return new Set();
    const holders = (await trx(spec.table)
      .where({ org_id: scope.orgId })
      .whereNull('deleted_at')
      .whereRaw('name = ANY(?::text[])', [names])
      .select('name', 'provider_id', 'external_id')) as { name: string; provider_id: string | null; external_id: string | null }[];
    const byName = new Map(holders.map((holder) => [holder.name, holder]));
    const taken = new Set<string>();
    for (const item of items) {
      const holder = byName.get(String(item.values.name));
      if (holder && !(holder.provider_id === scope.providerId && holder.external_id === item.external_id)) {
        taken.add(`${String(item.values.name)}\u0000${item.external_id}`);
      }
    }
    return taken;
  }

  private insertRow(spec: ImportTable, scope: ImportScope, item: ImportItem): Record<string, unknown> {
    const row: Record<string, unknown> = {
      org_id: scope.orgId,
      provider_id: scope.providerId,
      external_id: item.external_id,
      provider_seen_at: scope.seenAt,
      ...spec.scope,
    };
    for (const [column, type] of Object.entries(spec.columns)) {
      const value = item.values[column] ?? null;
      row[column] = type === 'jsonb' && value !== null ? JSON.stringify(value) : value;
    }
    if (spec.stamped) {
      row.created_by = scope.by;
      row.updated_by = scope.by;
    }
    return row;
  }

  /** Changed and returning rows in one statement: their values as a JSON record set joined by id. */
  private async update(
    trx: Knex.Transaction,
    spec: ImportTable,
    scope: ImportScope,
    changes: readonly Record<string, unknown>[],
  ): Promise<void> {
    const entries = Object.entries(spec.columns);
    const set = entries.map(([column]) => `"${column}" = x."${column}"`).join(', ');
    const shape = ['id uuid', ...entries.map(([column, type]) => `"${column}" ${type}`)].join(', ');
    const stamps = spec.stamped ? ', updated_by = ?' : '';
    await trx.raw(
      `UPDATE ${spec.table} t SET ${set}, deleted_at = NULL, deleted_by = NULL, updated_at = now(), provider_seen_at = ?${stamps}
         FROM jsonb_to_recordset(?::jsonb) AS x(${shape}) WHERE t.id = x.id`,
      [scope.seenAt, ...(spec.stamped ? [scope.by] : []), JSON.stringify(changes)],
    );
  }
}
