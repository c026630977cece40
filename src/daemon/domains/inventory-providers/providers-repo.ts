import type { Knex } from 'knex';
import { SoftDeleteTable, whereLive } from '../../db/soft-delete.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';

export interface ProviderRow {
  readonly id: string;
  readonly org_id: string;
  readonly type: string;
  readonly name: string;
  readonly provider_id: string;
  readonly description: string | null;
  readonly config_json: Record<string, unknown>;
  readonly credential_ref: string | null;
  readonly enabled: boolean;
  readonly sync_watermark: Date | null;
  readonly last_sync_id: string | null;
  readonly last_sync_status: string | null;
  readonly last_sync_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly deleted_at: Date | null;
  readonly deleted_by: string | null;
}

const COLUMNS = [
  'id',
  'org_id',
  'type',
  'name',
  'provider_id',
  'description',
  'config_json',
  'credential_ref',
  'enabled',
  'sync_watermark',
  'last_sync_id',
  'last_sync_status',
  'last_sync_at',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'deleted_at',
  'deleted_by',
] as const;

const PROVIDERS = new SoftDeleteTable<ProviderRow>('inventory_providers', COLUMNS);

export interface ProviderFilter {
  readonly type?: string | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number;
  readonly offset: number;
}

/** `inventory_providers`: the organization's providers, looked up by their provider id. */
export class ProvidersRepo extends TransactionalRepo {
  /** The organization's provider of this id; the live one, else the newest soft-deleted one. */
  async find(orgId: string, providerId: string, db: Knex = this.knex): Promise<ProviderRow | undefined> {
    return db('inventory_providers')
      .where({ org_id: orgId, provider_id: providerId })
      .orderByRaw('deleted_at IS NOT NULL, deleted_at DESC')
      .first(COLUMNS);
  }

  async lock(trx: Knex.Transaction, id: string): Promise<ProviderRow | undefined> {
    return trx('inventory_providers').where({ id }).forUpdate().first(COLUMNS);
  }

  async list(orgId: string, filter: ProviderFilter): Promise<{ rows: ProviderRow[]; total: number }> {
    const query = this.knex('inventory_providers').where({ org_id: orgId });
    if (!filter.includeDeleted) whereLive(query);
    if (filter.type) query.where({ type: filter.type });
    const rows = (await query
      .clone()
      .select(...COLUMNS, this.knex.raw('count(*) OVER () AS total'))
      .orderBy([{ column: 'provider_id' }, { column: 'id' }])
      .limit(filter.limit)
      .offset(filter.offset)) as (ProviderRow & { total: string | number })[];
    const total = rows[0] ? Number(rows[0].total) : filter.offset > 0 ? Number((await query.count({ n: '*' }))[0]?.n ?? 0) : 0;
    return { rows, total };
  }

  /** Every live provider of the organization (the provider-inventory summary). */
  async allLive(orgId: string): Promise<ProviderRow[]> {
    return whereLive(this.knex('inventory_providers').where({ org_id: orgId }))
      .orderBy('provider_id')
      .select(COLUMNS);
  }

  async isDefaultOrg(orgId: string): Promise<boolean> {
    const row = await this.knex('organizations').where({ id: orgId }).first('is_default');
    return Boolean((row as { is_default?: boolean } | undefined)?.is_default);
  }

  async insert(trx: Knex.Transaction, row: Record<string, unknown>): Promise<ProviderRow> {
    return PROVIDERS.insert(trx, row);
  }

  async update(trx: Knex.Transaction, id: string, change: Record<string, unknown>): Promise<ProviderRow> {
    return PROVIDERS.update(trx, id, change);
  }

  async softDelete(trx: Knex.Transaction, id: string, by: string | null): Promise<void> {
    await PROVIDERS.markDeleted(trx, [id], by);
  }

  async restore(trx: Knex.Transaction, id: string, by: string | null): Promise<void> {
    await PROVIDERS.restore(trx, [id], by);
  }

  /** Removes the provider for good; its sync history goes with it (cascade). */
  async purge(trx: Knex.Transaction, id: string): Promise<void> {
    await PROVIDERS.purge(trx, [id]);
  }

  /** Whether a live provider holds this provider id (a restore would duplicate it). */
  async liveHolds(trx: Knex.Transaction, providerId: string): Promise<boolean> {
    return (await whereLive(trx('inventory_providers').where({ provider_id: providerId })).first('id')) !== undefined;
  }
}
