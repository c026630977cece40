import type { Knex } from 'knex';

export interface VariableFields {
  readonly name: string;
  readonly type: string;
  readonly value_json: unknown;
  readonly description: string | null;
}

/** An organization's live variables as configuration exchange reads and writes them, on the handle it is given. */
export class VariablesRowsRepo {
  async live(db: Knex, orgId: string): Promise<(VariableFields & { id: string })[]> {
    return db('variables').where({ org_id: orgId }).whereNull('deleted_at').select('id', 'name', 'type', 'value_json', 'description');
  }

  async idOf(db: Knex, orgId: string, name: string): Promise<string> {
    const row = await db('variables').where({ org_id: orgId, name }).whereNull('deleted_at').forUpdate().first('id');
    if (!row) throw new Error(`variable ${name} vanished during the apply`);
    return (row as { id: string }).id;
  }

  async insert(db: Knex, orgId: string, fields: VariableFields, by: string | null): Promise<string> {
    const [row] = await db('variables')
      .insert({ org_id: orgId, ...fields, value_json: JSON.stringify(fields.value_json), created_by: by, updated_by: by })
      .returning('id');
    return (row as { id: string }).id;
  }

  async update(db: Knex, id: string, fields: VariableFields, by: string | null): Promise<void> {
    await db('variables')
      .where({ id })
      .update({ ...fields, value_json: JSON.stringify(fields.value_json), updated_by: by, updated_at: db.fn.now() });
  }

  async softDelete(db: Knex, id: string, by: string | null): Promise<void> {
    await db('variables').where({ id }).update({ deleted_at: db.fn.now(), deleted_by: by });
  }
}
