import type { Knex } from 'knex';
import { pageWithTotal } from '../../db/page.js';
import { cleared, SoftDeleteTable, type Visibility } from '../../db/soft-delete.js';
import { applyDeviceFilter, type DeviceFilter, type DeviceSort } from './device-filter.js';

export interface DeviceRow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly hostname: string | null;
  readonly platform: string | null;
  readonly role: string | null;
  readonly site_id: string | null;
  readonly serial: string | null;
  readonly tags: string[];
  readonly attributes_json: Record<string, unknown>;
  readonly overlay_json: Record<string, unknown>;
  readonly provider_id: string | null;
  readonly external_id: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly deleted_at: Date | null;
  readonly deleted_by: string | null;
}

/** The fields an API caller sets (`attributes` is stored as `attributes_json`). */
export interface DeviceFields {
  readonly name: string;
  readonly hostname: string | null;
  readonly platform: string | null;
  readonly role: string | null;
  readonly site_id: string | null;
  readonly serial: string | null;
  readonly tags: readonly string[];
  readonly attributes: Readonly<Record<string, unknown>>;
}

export type DevicesTx = Knex.Transaction;

export const DEVICE_COLUMNS = [
  'id',
  'org_id',
  'name',
  'hostname',
  'platform',
  'role',
  'site_id',
  'serial',
  'tags',
  'attributes_json',
  'overlay_json',
  'provider_id',
  'external_id',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'deleted_at',
  'deleted_by',
] as const;

const DEVICES = new SoftDeleteTable<DeviceRow>('devices', DEVICE_COLUMNS);

function writeFields(fields: Partial<DeviceFields>): Record<string, unknown> {
  const { attributes, tags, ...plain } = fields;
  const row: Record<string, unknown> = { ...plain };
  // pg would send a JS array as a PostgreSQL array literal, not as JSON.
  if (tags !== undefined) row.tags = JSON.stringify(tags);
  if (attributes !== undefined) row.attributes_json = JSON.stringify(attributes);
  return row;
}

/** The `devices` table for the device routes. Writes take the caller's transaction so the audit entry commits with them. */
export class DevicesRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: DevicesTx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  async findLive(orgIds: readonly string[], id: string): Promise<DeviceRow | undefined> {
    return DEVICES.live(this.knex).where({ id }).whereIn('org_id', orgIds).first(DEVICE_COLUMNS);
  }

  /** A device of one of `orgIds`, live or not, locked for the rest of the transaction. */
  async lock(trx: DevicesTx, orgIds: readonly string[], id: string): Promise<DeviceRow | undefined> {
    return trx('devices').where({ id }).whereIn('org_id', orgIds).forUpdate().first(DEVICE_COLUMNS);
  }

  async lockMany(trx: DevicesTx, orgIds: readonly string[], ids: readonly string[]): Promise<DeviceRow[]> {
    return trx('devices').whereIn('id', ids).whereIn('org_id', orgIds).forUpdate().select(DEVICE_COLUMNS);
  }

  /**
   * A page of devices. `orgId`/`includeDeleted` add the own organization's soft-deleted rows (lists);
   * searches pass `includeDeleted: false` and may narrow `orgIds` to one side.
   */
  async list(
    scope: Visibility,
    filter: DeviceFilter,
    page: { limit: number; offset: number; sort?: DeviceSort | undefined },
  ): Promise<{ rows: DeviceRow[]; total: number }> {
    const query = DEVICES.visible(this.knex, scope);
    applyDeviceFilter(query, filter);
    return pageWithTotal<DeviceRow>(this.knex, query, DEVICE_COLUMNS, order(page.sort), page);
  }

  /** Ids of the live devices matching, in name order, at most `cap`, and how many match in all. */
  async ids(orgIds: readonly string[], filter: DeviceFilter, cap: number): Promise<{ ids: string[]; total: number }> {
    const query = DEVICES.live(this.knex).whereIn('org_id', orgIds);
    applyDeviceFilter(query, filter);
    const [counted] = await query.clone().count<{ n: string | number }[]>('* as n');
    const rows: { id: string }[] = await query.select('id').orderBy(order(undefined)).limit(cap);
    return { ids: rows.map((r) => r.id), total: Number(counted?.n ?? 0) };
  }

  async liveNames(trx: DevicesTx, orgId: string, names: readonly string[], exceptId?: string): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const query = DEVICES.live(trx).where({ org_id: orgId }).whereIn('name', names);
    if (exceptId) query.whereNot('id', exceptId);
    return new Set((await query.select('name')).map((r: { name: string }) => r.name));
  }

  async insert(trx: DevicesTx, row: DeviceFields & { org_id: string; created_by: string | null }): Promise<DeviceRow> {
    const [inserted] = await trx('devices')
      .insert({ ...writeFields(row), org_id: row.org_id, created_by: row.created_by, updated_by: row.created_by })
      .returning(DEVICE_COLUMNS);
    return inserted as DeviceRow;
  }

  async update(trx: DevicesTx, id: string, fields: Partial<DeviceFields>, by: string | null): Promise<DeviceRow> {
    const [row] = await trx('devices')
      .where({ id })
      .update({ ...writeFields(fields), updated_at: trx.fn.now(), updated_by: by })
      .returning(DEVICE_COLUMNS);
    return row as DeviceRow;
  }

  async setOverlay(trx: DevicesTx, id: string, overlay: Record<string, unknown>, by: string | null): Promise<DeviceRow> {
    const [row] = await trx('devices')
      .where({ id })
      .update({ overlay_json: JSON.stringify(overlay), updated_at: trx.fn.now(), updated_by: by })
      .returning(DEVICE_COLUMNS);
    return row as DeviceRow;
  }

  async softDelete(trx: DevicesTx, ids: readonly string[], by: string | null): Promise<DeviceRow[]> {
    return DEVICES.markDeleted(trx, ids, by);
  }

  /** Brings devices back; those in `detach` lose a site that is no longer live. */
  async restore(trx: DevicesTx, ids: readonly string[], detach: ReadonlySet<string>, by: string | null): Promise<DeviceRow[]> {
    return DEVICES.restore(trx, ids, by, cleared(trx, 'site_id', detach));
  }

  async purge(trx: DevicesTx, ids: readonly string[]): Promise<void> {
    await DEVICES.purge(trx, ids);
  }
}

function order(sort: DeviceSort | undefined): { column: string; order: 'asc' | 'desc' }[] {
  const key = sort ?? 'name';
  const desc = key.startsWith('-');
  const column = desc ? key.slice(1) : key;
  return [
    { column, order: desc ? 'desc' : 'asc' },
    ...(column === 'name' ? [] : [{ column: 'name', order: 'asc' as const }]),
    { column: 'id', order: 'asc' },
  ];
}
