import type { Knex } from 'knex';
import type { FileRepositoryKind } from '../../../shared/api/file-repositories.js';
import { pageWithTotal } from '../../db/page.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';

export type FilesTx = Knex.Transaction;
type Db = Knex | FilesTx;

export interface RepositoryRow {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly kind: FileRepositoryKind;
  readonly config_json: Record<string, unknown>;
  readonly is_default: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
}

/** A repository with what it holds. */
export interface RepositoryWithTotals extends RepositoryRow {
  readonly file_count: string | number;
  readonly size_bytes: string | number;
}

export interface RepositoryFilter {
  readonly kind?: FileRepositoryKind | undefined;
  readonly q?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

const COLUMNS = [
  'id',
  'org_id',
  'name',
  'description',
  'kind',
  'config_json',
  'is_default',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
] as const;

/** `file_repositories`, with the count and bytes of their files. */
export class RepositoriesRepo extends TransactionalRepo {
  get direct(): Knex {
    return this.knex;
  }

  #withTotals(db: Db): Knex.QueryBuilder {
    return db('file_repositories as r').select(
      ...COLUMNS.map((c) => `r.${c}`),
      db.raw('(SELECT count(*) FROM files f WHERE f.repository_id = r.id) AS file_count'),
      db.raw('(SELECT coalesce(sum(f.size_bytes), 0) FROM files f WHERE f.repository_id = r.id) AS size_bytes'),
    );
  }

  /** The first `limit` repositories of every organization, oldest first, and how many there are: what platform health checks. */
  async sample(limit: number): Promise<{ rows: RepositoryRow[]; total: number }> {
    return pageWithTotal<RepositoryRow>(
      this.knex,
      this.knex('file_repositories'),
      COLUMNS,
      [
        { column: 'created_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ],
      { limit, offset: 0 },
    );
  }

  /** One repository among the organizations given (the active one, and the shared one where it reads). */
  async find(orgIds: readonly string[], id: string, db: Db = this.knex): Promise<RepositoryWithTotals | undefined> {
    return this.#withTotals(db).whereIn('r.org_id', orgIds).where('r.id', id).first();
  }

  /** Which of `ids` name a repository (of any organization): what a sweep of their directories keeps. */
  async existingIds(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.knex('file_repositories').whereIn('id', ids).select<{ id: string }[]>('id');
    return new Set(rows.map((row) => row.id));
  }

  async lock(trx: FilesTx, orgId: string, id: string): Promise<RepositoryRow | undefined> {
    return trx('file_repositories').where({ org_id: orgId, id }).forUpdate().first(COLUMNS);
  }

  async byId(id: string, db: Db = this.knex): Promise<RepositoryRow | undefined> {
    return db('file_repositories').where({ id }).first(COLUMNS);
  }

  async defaultOf(orgId: string, db: Db = this.knex): Promise<RepositoryRow | undefined> {
    return db('file_repositories').where({ org_id: orgId, is_default: true }).first(COLUMNS);
  }

  async list(orgIds: readonly string[], filter: RepositoryFilter): Promise<{ rows: RepositoryWithTotals[]; total: number }> {
    const filtered = this.knex('file_repositories as r').whereIn('r.org_id', orgIds);
    if (filter.kind) filtered.where('r.kind', filter.kind);
    if (filter.q) filtered.whereRaw('position(lower(?) in lower(r.name)) > 0', [filter.q]);
    const columns = [
      ...COLUMNS.map((c) => `r.${c}`),
      '(SELECT count(*) FROM files f WHERE f.repository_id = r.id) AS file_count',
      '(SELECT coalesce(sum(f.size_bytes), 0) FROM files f WHERE f.repository_id = r.id) AS size_bytes',
    ].map((c) => (c.startsWith('(') ? this.knex.raw(c) : c));
    return pageWithTotal<RepositoryWithTotals>(
      this.knex,
      filtered,
      columns as unknown as string[],
      [
        { column: 'r.name', order: 'asc' },
        { column: 'r.id', order: 'asc' },
      ],
      filter,
    );
  }

  async insert(trx: FilesTx, row: Record<string, unknown>): Promise<RepositoryRow> {
    const [inserted] = await trx('file_repositories').insert(row).returning(COLUMNS);
    return inserted as RepositoryRow;
  }

  async update(trx: FilesTx, id: string, changes: Record<string, unknown>): Promise<RepositoryRow> {
    const [updated] = await trx('file_repositories')
      .where({ id })
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning(COLUMNS);
    return updated as RepositoryRow;
  }

  /** Clears the organization's default (before another takes it: the unique index allows one). */
  async clearDefault(trx: FilesTx, orgId: string): Promise<void> {
    await trx('file_repositories').where({ org_id: orgId, is_default: true }).update({ is_default: false, updated_at: trx.fn.now() });
  }

  async remove(trx: FilesTx, id: string): Promise<void> {
    await trx('file_repositories').where({ id }).delete();
  }

  /** Its files and the flow attachments' blobs it holds (docs/flow-attachments.md): either keeps it from going. */
  async fileCount(trx: FilesTx, id: string): Promise<number> {
    const [files] = await trx('files').where({ repository_id: id }).count<{ n: string | number }[]>('* as n');
    const [blobs] = await trx('flow_attachment_blobs').where({ repository_id: id }).count<{ n: string | number }[]>('* as n');
    return Number(files?.n ?? 0) + Number(blobs?.n ?? 0);
  }

  /** Run artifacts whose bytes the repository keeps (SERVICE_ARTIFACT_STORE `repository`). */
  async artifactCount(trx: FilesTx, id: string): Promise<number> {
    const [row] = await trx('run_artifacts').where({ repository_id: id }).count<{ n: string | number }[]>('* as n');
    return Number(row?.n ?? 0);
  }

  /** Every repository of a kind, across organizations (housekeeping). */
  async ofKind(kind: FileRepositoryKind): Promise<RepositoryRow[]> {
    return this.knex('file_repositories').where({ kind }).select(COLUMNS);
  }

  /** Serialises `ensure-default` per organization: two first requests make one repository. */
  async lockOrg(trx: FilesTx, orgId: string): Promise<void> {
    await trx('organizations').where({ id: orgId }).forUpdate().first('id');
  }
}
