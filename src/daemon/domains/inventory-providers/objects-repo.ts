import type { Knex } from 'knex';

export interface ObjectRow {
  readonly id: string;
  readonly org_id: string;
  readonly provider_id: string;
  readonly object_type: string;
  readonly external_id: string;
  readonly name: string;
  readonly data_json: Record<string, unknown>;
  readonly provider_updated_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly deleted_at: Date | null;
}

const COLUMNS = [
  'id',
  'org_id',
  'provider_id',
  'object_type',
  'external_id',
  'name',
  'data_json',
  'provider_updated_at',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;

export interface ObjectFilter {
  readonly providerId?: string | undefined;
  readonly q?: string | undefined;
  readonly includeStale: boolean;
  readonly limit: number;
  readonly offset: number;
}

/** `inventory_objects`, read only: providers write them through the sync. */
export class ObjectsRepo {
  constructor(private readonly knex: Knex) {}

  async list(orgId: string, objectType: string, filter: ObjectFilter): Promise<{ rows: ObjectRow[]; total: number }> {
    const query = this.knex('inventory_objects').where({ org_id: orgId, object_type: objectType });
    if (!filter.includeStale) query.whereNull('deleted_at');
    if (filter.providerId) query.where({ provider_id: filter.providerId });
    if (filter.q) query.whereRaw('position(lower(?) in lower(name)) > 0', [filter.q]);
    const rows = (await query
      .clone()
      .select(...COLUMNS, this.knex.raw('count(*) OVER () AS total'))
      .orderBy([{ column: 'name' }, { column: 'id' }])
      .limit(filter.limit)
      .offset(filter.offset)) as (ObjectRow & { total: string | number })[];
    const total = rows[0] ? Number(rows[0].total) : filter.offset > 0 ? Number((await query.count({ n: '*' }))[0]?.n ?? 0) : 0;
    return { rows, total };
  }

  async find(orgId: string, objectType: string, id: string): Promise<ObjectRow | undefined> {
    return this.knex('inventory_objects').where({ org_id: orgId, object_type: objectType, id }).first(COLUMNS);
  }

  /** The live object a provider reference names: by its external id, or by name (the first by id when names repeat). */
  async resolve(
    orgId: string,
    objectType: string,
    ref: { providerId: string; externalId?: string | undefined; name?: string | undefined },
  ): Promise<ObjectRow | undefined> {
    const query = this.knex('inventory_objects')
      .where({ org_id: orgId, object_type: objectType, provider_id: ref.providerId })
      .whereNull('deleted_at');
    if (ref.externalId !== undefined) query.where({ external_id: ref.externalId });
    else query.where({ name: ref.name });
    return query.orderBy('id').first(COLUMNS);
  }

  async types(orgId: string): Promise<string[]> {
    const rows = (await this.knex('inventory_objects').where({ org_id: orgId }).distinct('object_type').orderBy('object_type')) as {
      object_type: string;
    }[];
    return rows.map((row) => row.object_type);
  }

  async typeCounts(orgId: string): Promise<{ object_type: string; live: number; stale: number }[]> {
    const rows = (await this.knex('inventory_objects')
      .where({ org_id: orgId })
      .groupBy('object_type')
      .orderBy('object_type')
      .select(
        'object_type',
        this.knex.raw('count(*) FILTER (WHERE deleted_at IS NULL) AS live'),
        this.knex.raw('count(*) FILTER (WHERE deleted_at IS NOT NULL) AS stale'),
      )) as { object_type: string; live: string | number; stale: string | number }[];
    return rows.map((row) => ({ object_type: row.object_type, live: Number(row.live), stale: Number(row.stale) }));
  }
}
