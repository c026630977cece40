import type { Knex } from 'knex';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { SoftDeleteTable } from '../../db/soft-delete.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';

export interface FlowRow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly draft_json: FlowDefinition;
  readonly draft_dirty: boolean;
  readonly latest_version: number;
  readonly is_pinned: boolean;
  readonly manual_runs_enabled: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly deleted_at: Date | null;
  readonly deleted_by: string | null;
}

/** A flow without its draft: what lists carry. */
export type FlowSummaryRow = Omit<FlowRow, 'draft_json'>;

export interface FlowVersionRow {
  readonly id: string;
  readonly flow_id: string;
  readonly version: number;
  readonly definition_json: FlowDefinition;
  readonly message: string | null;
  readonly committed_by: string | null;
  readonly committed_at: Date;
}

export type FlowVersionSummaryRow = Omit<FlowVersionRow, 'definition_json'>;

/** A transaction of this repository; services and delete guards pass it back without looking inside. */
export type FlowsTx = Knex.Transaction;

export interface FlowListFilter {
  /** The active organization, then the shared one (read-only). */
  readonly orgIds: readonly string[];
  /** Soft-deleted flows of `orgIds[0]` only: the shared organization's bin is its own business. */
  readonly includeDeleted: boolean;
  readonly q?: string | undefined;
  readonly pinned?: boolean | undefined;
  readonly limit: number;
  readonly offset: number;
}

export type FlowChanges = Partial<
  Pick<FlowRow, 'name' | 'description' | 'draft_json' | 'draft_dirty' | 'latest_version' | 'is_pinned' | 'manual_runs_enabled'>
> & {
  readonly updated_by: string | null;
};

const SUMMARY = [
  'id',
  'org_id',
  'name',
  'description',
  'draft_dirty',
  'latest_version',
  'is_pinned',
  'manual_runs_enabled',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'deleted_at',
  'deleted_by',
] as const;
const FULL = [...SUMMARY, 'draft_json'] as const;
const VERSION_SUMMARY = ['id', 'flow_id', 'version', 'message', 'committed_by', 'committed_at'] as const;
const FLOWS = new SoftDeleteTable<Record<string, unknown>>('flows', FULL);

/** jsonb comes back parsed from pg; parse it here too should a driver hand back text. */
function parsed<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function flow(row: Record<string, unknown> | undefined): FlowRow | undefined {
  return row ? ({ ...row, draft_json: parsed(row.draft_json) } as FlowRow) : undefined;
}

/** LIKE wildcards in a user's search text match themselves. */
function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The `flows` and `flow_versions` tables. Writes take the caller's transaction, so the audit entry commits with them. */
export class FlowsRepo extends TransactionalRepo {
  /** A flow of one of `orgIds` (deleted or not: the caller decides what a deleted flow means). */
  async find(orgIds: readonly string[], id: string): Promise<FlowRow | undefined> {
    return flow(await this.knex('flows').where({ id }).whereIn('org_id', orgIds).first(FULL));
  }

  /** The same, locked until `trx` ends: every write to a flow goes through here, so writes to one flow queue. */
  async lock(trx: FlowsTx, orgIds: readonly string[], id: string): Promise<FlowRow | undefined> {
    return flow(await trx('flows').where({ id }).whereIn('org_id', orgIds).forUpdate().first(FULL));
  }

  async list(filter: FlowListFilter): Promise<{ rows: FlowSummaryRow[]; total: number }> {
    const [own] = filter.orgIds;
    const query = FLOWS.visible(this.knex, { orgId: own!, orgIds: filter.orgIds, includeDeleted: filter.includeDeleted });
    if (filter.q) query.andWhereRaw(`name ILIKE ? ESCAPE '\\'`, [likeContains(filter.q)]);
    if (filter.pinned !== undefined) query.andWhere('is_pinned', filter.pinned);
    const [count, rows] = await Promise.all([
      query.clone().count<{ count: string | number }[]>({ count: '*' }),
      query
        .clone()
        .select(SUMMARY)
        // Byte order after folding case: the same order on PostgreSQL and the embedded database whatever their collation.
        .orderByRaw('is_pinned DESC, lower(name) COLLATE "C", name COLLATE "C", id')
        .limit(filter.limit)
        .offset(filter.offset),
    ]);
    return { rows: rows as FlowSummaryRow[], total: Number(count[0]?.count ?? 0) };
  }

  /** Whether a live flow of the organization has this name (other than `exceptId`). */
  async nameTaken(trx: FlowsTx, orgId: string, name: string, exceptId?: string): Promise<boolean> {
    const query = FLOWS.live(trx).where({ org_id: orgId, name });
    if (exceptId) query.whereNot({ id: exceptId });
    return (await query.first('id')) !== undefined;
  }

  async insert(
    trx: FlowsTx,
    row: {
      org_id: string;
      name: string;
      description: string | null;
      draft_json: FlowDefinition;
      manual_runs_enabled?: boolean;
      created_by: string | null;
    },
  ): Promise<FlowRow> {
    const [inserted] = await trx('flows')
      .insert({ ...row, draft_json: JSON.stringify(row.draft_json), draft_dirty: true, updated_by: row.created_by })
      .returning(FULL);
    return flow(inserted)!;
  }

  async update(trx: FlowsTx, id: string, changes: FlowChanges): Promise<FlowRow> {
    const { draft_json, ...rest } = changes;
    const [row] = await trx('flows')
      .where({ id })
      .update({ ...rest, ...(draft_json !== undefined ? { draft_json: JSON.stringify(draft_json) } : {}), updated_at: trx.fn.now() })
      .returning(FULL);
    return flow(row)!;
  }

  /** Marks the flow deleted; for a flow that is a change too (`updated_at`, `updated_by`), as it always was. */
  async softDelete(trx: FlowsTx, id: string, by: string | null): Promise<void> {
    await FLOWS.markDeleted(trx, [id], by, { updated_at: trx.fn.now(), updated_by: by });
  }

  async restore(trx: FlowsTx, id: string, by: string | null): Promise<FlowRow> {
    const [row] = await FLOWS.restore(trx, [id], by);
    return flow(row)!;
  }

  /** Deletes the flow and (cascade) its versions; runs keep their snapshot and lose the link. */
  async purge(trx: FlowsTx, id: string): Promise<void> {
    await FLOWS.purge(trx, [id]);
  }

  async version(db: FlowsTx | undefined, flowId: string, version: number): Promise<FlowVersionRow | undefined> {
    const row = await (db ?? this.knex)('flow_versions')
      .where({ flow_id: flowId, version })
      .first([...VERSION_SUMMARY, 'definition_json']);
    return row ? ({ ...row, definition_json: parsed(row.definition_json) } as FlowVersionRow) : undefined;
  }

  async versions(flowId: string, page: { limit: number; offset: number }): Promise<{ rows: FlowVersionSummaryRow[]; total: number }> {
    const query = this.knex('flow_versions').where({ flow_id: flowId });
    const [count, rows] = await Promise.all([
      query.clone().count<{ count: string | number }[]>({ count: '*' }),
      query.clone().select(VERSION_SUMMARY).orderBy('version', 'desc').limit(page.limit).offset(page.offset),
    ]);
    return { rows: rows as FlowVersionSummaryRow[], total: Number(count[0]?.count ?? 0) };
  }

  async insertVersion(
    trx: FlowsTx,
    row: { flow_id: string; version: number; definition_json: FlowDefinition; message: string | null; committed_by: string | null },
  ): Promise<FlowVersionRow> {
    const [inserted] = await trx('flow_versions')
      .insert({ ...row, definition_json: JSON.stringify(row.definition_json) })
      .returning([...VERSION_SUMMARY, 'definition_json']);
    return { ...inserted, definition_json: parsed(inserted.definition_json) } as FlowVersionRow;
  }
}
