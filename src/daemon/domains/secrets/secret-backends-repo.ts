import type { Knex } from 'knex';

export interface SecretBackendRow {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly scheme: string;
  readonly config_json: Record<string, unknown>;
  readonly is_default: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
}

export interface SecretBackendWithUse extends SecretBackendRow {
  readonly secrets_count: number;
}

export type BackendsTx = Knex.Transaction;

const COLUMNS = [
  'id',
  'name',
  'type',
  'scheme',
  'config_json',
  'is_default',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
] as const;

/** jsonb comes back parsed from pg; parse it here too should a driver hand back text. */
function parsed(row: SecretBackendRow): SecretBackendRow;
function parsed(row: SecretBackendRow | undefined): SecretBackendRow | undefined;
function parsed(row: SecretBackendRow | undefined): SecretBackendRow | undefined {
  if (!row) return row;
  const config = row.config_json as unknown;
  return {
    ...row,
    config_json: typeof config === 'string' ? (JSON.parse(config) as Record<string, unknown>) : ((config as Record<string, unknown>) ?? {}),
  };
}

/** The `secret_backends` table. */
export class SecretBackendsRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: BackendsTx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  async list(page: { limit: number; offset: number }): Promise<{ rows: SecretBackendWithUse[]; total: number }> {
    const [count] = await this.knex('secret_backends').count<{ n: string | number }[]>('* as n');
    const rows: SecretBackendWithUse[] = await this.#withUse(this.knex)
      .orderBy([{ column: 'b.is_default', order: 'desc' }, { column: 'b.name' }])
      .limit(page.limit)
      .offset(page.offset);
    return { rows: rows.map((r) => ({ ...parsed(r), secrets_count: Number(r.secrets_count) })), total: Number(count?.n ?? 0) };
  }

  /** Every backend, for the providers list and discovery (few rows: backends are platform settings). */
  async all(): Promise<SecretBackendRow[]> {
    const rows: SecretBackendRow[] = await this.knex('secret_backends')
      .orderBy([{ column: 'is_default', order: 'desc' }, { column: 'name' }])
      .select(COLUMNS);
    return rows.map((r) => parsed(r));
  }

  async find(id: string): Promise<SecretBackendWithUse | undefined> {
    const row: SecretBackendWithUse | undefined = await this.#withUse(this.knex).where('b.id', id).first();
    return row ? { ...parsed(row), secrets_count: Number(row.secrets_count) } : undefined;
  }

  async findDefault(tx?: BackendsTx): Promise<SecretBackendRow | undefined> {
    return parsed(await (tx ?? this.knex)('secret_backends').where({ is_default: true }).first(COLUMNS));
  }

  async findByScheme(scheme: string): Promise<SecretBackendRow | undefined> {
    return parsed(await this.knex('secret_backends').where({ scheme }).first(COLUMNS));
  }

  async lock(trx: BackendsTx, id: string): Promise<SecretBackendRow | undefined> {
    return parsed(await trx('secret_backends').where({ id }).forUpdate().first(COLUMNS));
  }

  /** Inserts, or answers undefined when the name or the scheme is taken. */
  async insert(
    trx: BackendsTx,
    row: { name: string; type: string; scheme: string; config_json: Record<string, unknown>; created_by: string | null },
  ): Promise<SecretBackendRow | undefined> {
    const [inserted] = await trx('secret_backends')
      .insert({ ...row, config_json: JSON.stringify(row.config_json), updated_by: row.created_by })
      .onConflict()
      .ignore()
      .returning(COLUMNS);
    return parsed(inserted as SecretBackendRow | undefined);
  }

  async nameTaken(trx: BackendsTx, name: string, exceptId?: string): Promise<boolean> {
    const query = trx('secret_backends').where({ name });
    if (exceptId) query.whereNot({ id: exceptId });
    return (await query.first('id')) !== undefined;
  }

  async update(
    trx: BackendsTx,
    id: string,
    change: { name?: string | undefined; is_default?: boolean | undefined; updated_by: string | null },
  ): Promise<SecretBackendRow> {
    const set: Record<string, unknown> = { updated_at: trx.fn.now(), updated_by: change.updated_by };
    if (change.name !== undefined) set.name = change.name;
    if (change.is_default !== undefined) set.is_default = change.is_default;
    const [row] = await trx('secret_backends').where({ id }).update(set).returning(COLUMNS);
    return parsed(row as SecretBackendRow);
  }

  /** Takes the default mark from whichever backend holds it (before another one gets it: one default at most). */
  async clearDefault(trx: BackendsTx, updatedBy: string | null): Promise<void> {
    await trx('secret_backends').where({ is_default: true }).update({ is_default: false, updated_at: trx.fn.now(), updated_by: updatedBy });
  }

  async secretsUsing(trx: BackendsTx, id: string): Promise<number> {
    const [row] = await trx('secrets').where({ backend_id: id }).count<{ n: string | number }[]>('* as n');
    return Number(row?.n ?? 0);
  }

  async delete(trx: BackendsTx, id: string): Promise<void> {
    await trx('secret_backends').where({ id }).delete();
  }

  #withUse(db: Knex) {
    return db('secret_backends as b').select([
      ...COLUMNS.map((c) => `b.${c}`),
      db.raw('(SELECT count(*) FROM secrets s WHERE s.backend_id = b.id) AS secrets_count'),
    ]);
  }
}
