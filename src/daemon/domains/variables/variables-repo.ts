import type { Knex } from 'knex';
import type { VariableType } from '../../../shared/variables/variable-rules.js';
import { pageWithTotal } from '../../db/page.js';
import { SoftDeleteTable } from '../../db/soft-delete.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';
import type { HeldFacts } from '../run-callbacks/fence.js';

export type VariablesTx = Knex.Transaction;

export interface VariableRow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly type: VariableType;
  readonly value_json: unknown;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly deleted_at: Date | null;
  readonly deleted_by: string | null;
}

export interface VariableFilter {
  readonly orgId: string;
  readonly orgIds: readonly string[];
  readonly q?: string | undefined;
  readonly type?: VariableType | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number;
  readonly offset: number;
}

/** What the worker's read needs of its run: the fencing facts and the organization. */
export interface RunFacts extends HeldFacts {
  readonly id: string;
  readonly org_id: string;
}

const COLUMNS = [
  'id',
  'org_id',
  'name',
  'description',
  'type',
  'value_json',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'deleted_at',
  'deleted_by',
] as const;

const VARIABLES = new SoftDeleteTable<VariableRow>('variables', COLUMNS);

/** `variables`: an organization's typed values, soft-deleted through `db/soft-delete.ts`. */
export class VariablesRepo extends TransactionalRepo {
  /** A live variable of one of `orgIds`. */
  async findLive(orgIds: readonly string[], id: string): Promise<VariableRow | undefined> {
    return VARIABLES.live(this.knex).where({ id }).whereIn('org_id', orgIds).first(COLUMNS);
  }

  /** A variable of one of `orgIds`, live or not, locked for the rest of the transaction. */
  async lock(trx: VariablesTx, orgIds: readonly string[], id: string): Promise<VariableRow | undefined> {
    return trx('variables').where({ id }).whereIn('org_id', orgIds).forUpdate().first(COLUMNS);
  }

  async list(filter: VariableFilter): Promise<{ rows: VariableRow[]; total: number }> {
    const query = VARIABLES.visible(this.knex, filter);
    if (filter.q) query.whereRaw('position(lower(?) in lower(name)) > 0', [filter.q]);
    if (filter.type) query.where('type', filter.type);
    return pageWithTotal<VariableRow>(
      this.knex,
      query,
      COLUMNS,
      [
        { column: 'name', order: 'asc' },
        { column: 'org_id', order: 'asc' },
        { column: 'id', order: 'asc' },
      ],
      filter,
    );
  }

  /** Whether a live variable of the organization holds `name` (other than `exceptId`). */
  async nameTaken(trx: VariablesTx, orgId: string, name: string, exceptId?: string): Promise<boolean> {
    const query = VARIABLES.live(trx).where({ org_id: orgId, name });
    if (exceptId) query.whereNot('id', exceptId);
    return (await query.first('id')) !== undefined;
  }

  async insert(trx: VariablesTx, row: Record<string, unknown>): Promise<VariableRow> {
    const [inserted] = await trx('variables').insert(row).returning(COLUMNS);
    return inserted as VariableRow;
  }

  async update(trx: VariablesTx, id: string, change: Record<string, unknown>): Promise<VariableRow> {
    const [updated] = await trx('variables')
      .where({ id })
      .update({ ...change, updated_at: trx.fn.now() })
      .returning(COLUMNS);
    return updated as VariableRow;
  }

  async softDelete(trx: VariablesTx, id: string, by: string | null): Promise<VariableRow | undefined> {
    return (await VARIABLES.markDeleted(trx, [id], by))[0];
  }

  async restore(trx: VariablesTx, id: string, by: string | null): Promise<VariableRow | undefined> {
    return (await VARIABLES.restore(trx, [id], by))[0];
  }

  async purge(trx: VariablesTx, id: string): Promise<void> {
    await VARIABLES.purge(trx, [id]);
  }

  /** Every live variable of `orgIds` (a run's resolution: its organization's and the shared one's). */
  async allLive(orgIds: readonly string[]): Promise<VariableRow[]> {
    return VARIABLES.live(this.knex).whereIn('org_id', orgIds).orderBy('name').select(COLUMNS);
  }

  /** Live variables of `orgIds` by name, without values (what an editor may know). */
  async liveNames(orgIds: readonly string[]): Promise<Pick<VariableRow, 'name' | 'type' | 'org_id' | 'description'>[]> {
    return VARIABLES.live(this.knex).whereIn('org_id', orgIds).orderBy('name').select('name', 'type', 'org_id', 'description');
  }

  /** The run a worker asks for, with what fencing reads. */
  async run(id: string): Promise<RunFacts | undefined> {
    return this.knex('runs').where({ id }).first('id', 'org_id', 'status', 'worker_id', 'attempt', 'lease_expires_at');
  }
}
