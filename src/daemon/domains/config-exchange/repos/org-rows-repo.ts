import type { Knex } from 'knex';

type Row = Record<string, unknown>;

/**
 * One organization-owned table without soft delete (git repositories, file repositories, registry
 * credentials, ...) as configuration exchange reads and writes it, on the handle it is given. Rows are
 * found by their natural key's columns; `jsonColumns` are sent as JSON text (pg would send an array as a
 * PostgreSQL array literal).
 */
export class OrgRowsRepo {
  constructor(
    private readonly table: string,
    private readonly jsonColumns: readonly string[] = [],
    /** Whether the table has `created_by`/`updated_by` columns. */
    private readonly stamped = true,
  ) {}

  async rows(db: Knex, orgId: string, columns: readonly string[]): Promise<Row[]> {
    return db(this.table).where({ org_id: orgId }).select(columns);
  }

  async idOf(db: Knex, orgId: string, key: Row): Promise<string> {
    const row = await db(this.table)
      .where({ ...key, org_id: orgId })
      .forUpdate()
      .first('id');
    if (!row) throw new Error(`${this.table} ${JSON.stringify(key)} vanished during the apply`);
    return (row as { id: string }).id;
  }

  async insert(db: Knex, orgId: string, fields: Row, by: string | null): Promise<string> {
    const [row] = await db(this.table)
      .insert({ ...this.#written(fields), org_id: orgId, ...(this.stamped ? { created_by: by, updated_by: by } : {}) })
      .returning('id');
    return (row as { id: string }).id;
  }

  async update(db: Knex, id: string, fields: Row, by: string | null): Promise<void> {
    await db(this.table)
      .where({ id })
      .update({ ...this.#written(fields), ...(this.stamped ? { updated_by: by } : {}), updated_at: db.fn.now() });
  }

  async delete(db: Knex, id: string): Promise<void> {
    await db(this.table).where({ id }).delete();
  }

  /** How many rows of `table` reference the row through `column`: what keeps it from being pruned. */
  async referencing(db: Knex, table: string, column: string, id: string): Promise<number> {
    const [row] = await db(table).where(column, id).count<{ n: string | number }[]>('* as n');
    return Number(row?.n ?? 0);
  }

  #written(fields: Row): Row {
    const row = { ...fields };
    for (const column of this.jsonColumns) if (column in row) row[column] = JSON.stringify(row[column]);
    return row;
  }
}
