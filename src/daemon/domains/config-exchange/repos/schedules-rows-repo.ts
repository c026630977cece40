import type { Knex } from 'knex';

export interface ScheduleExchangeRow {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly flow_name: string | null;
  readonly flow_version: number | null;
  readonly cron: string;
  readonly timezone: string;
  readonly params_json: Record<string, unknown>;
  readonly targets_json: Record<string, string[]>;
  readonly enabled: boolean;
  readonly misfire_policy: string;
}

/** The columns of a schedule as configuration exchange writes them (ids, not names). */
export type ScheduleColumns = Omit<ScheduleExchangeRow, 'id' | 'flow_name'> & {
  readonly flow_id: string | null;
  readonly next_fire_at: Date | null;
};

/** An organization's live schedules with their flow by name, and its devices by name, on the handle it is given. */
export class SchedulesRowsRepo {
  async live(db: Knex, orgId: string): Promise<ScheduleExchangeRow[]> {
    return db('schedules as s')
      .leftJoin('flows as f', (j) => j.on('f.id', 's.flow_id').andOnNull('f.deleted_at'))
      .where('s.org_id', orgId)
      .whereNull('s.deleted_at')
      .orderByRaw('s.name COLLATE "C"')
      .select(
        's.id',
        's.name',
        's.description',
        'f.name as flow_name',
        's.flow_version',
        's.cron',
        's.timezone',
        's.params_json',
        's.targets_json',
        's.enabled',
        's.misfire_policy',
      );
  }

  /** Names of the organization's devices by id (live or not: a schedule may still name a deleted one). */
  async deviceNames(db: Knex, orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = (await db('devices').where('org_id', orgId).whereIn('id', ids).select('id', 'name')) as { id: string; name: string }[];
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /** Ids of the organization's live devices by name. */
  async deviceIds(db: Knex, orgId: string, names: readonly string[]): Promise<Map<string, string>> {
    if (names.length === 0) return new Map();
    const rows = (await db('devices').where('org_id', orgId).whereNull('deleted_at').whereIn('name', names).select('id', 'name')) as {
      id: string;
      name: string;
    }[];
    return new Map(rows.map((r) => [r.name, r.id]));
  }

  async idOf(db: Knex, orgId: string, name: string): Promise<string> {
    const row = await db('schedules').where({ org_id: orgId, name }).whereNull('deleted_at').forUpdate().first('id');
    if (!row) throw new Error(`schedule ${name} vanished during the apply`);
    return (row as { id: string }).id;
  }

  async insert(db: Knex, orgId: string, columns: ScheduleColumns, by: string | null): Promise<string> {
    const [row] = await db('schedules')
      .insert({ org_id: orgId, ...stored(columns), created_by: by, updated_by: by })
      .returning('id');
    return (row as { id: string }).id;
  }

  async update(db: Knex, id: string, columns: Partial<ScheduleColumns>, by: string | null): Promise<void> {
    await db('schedules')
      .where({ id })
      .update({ ...stored(columns), updated_by: by, updated_at: db.fn.now() });
  }

  async softDelete(db: Knex, id: string, by: string | null): Promise<void> {
    await db('schedules').where({ id }).update({ deleted_at: db.fn.now(), deleted_by: by, next_fire_at: null });
  }
}

function stored(columns: Partial<ScheduleColumns>): Record<string, unknown> {
  const { params_json, targets_json, ...rest } = columns;
  return {
    ...rest,
    ...(params_json !== undefined ? { params_json: JSON.stringify(params_json) } : {}),
    ...(targets_json !== undefined ? { targets_json: JSON.stringify(targets_json) } : {}),
  };
}
