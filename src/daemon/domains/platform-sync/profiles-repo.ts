import type { Knex } from 'knex';
import { pageWithTotal } from '../../db/page.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';

export interface ProfileRow {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly source_kind: 'bundle' | 'file' | 'installation';
  readonly source_bundle: string | null;
  readonly source_file_id: string | null;
  readonly source_base_url: string | null;
  readonly source_token_ref: string | null;
  readonly source_org: string | null;
  readonly target_org_id: string | null;
  /** The target organization's slug, joined (null: the platform). */
  readonly target_org_slug: string | null;
  readonly families: string[];
  readonly prune: boolean;
  readonly revision: number;
  readonly last_applied_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
}

const TABLE = 'platform_sync_profiles';
const COLUMNS = [
  'p.id',
  'p.name',
  'p.description',
  'p.source_kind',
  'p.source_bundle',
  'p.source_file_id',
  'p.source_base_url',
  'p.source_token_ref',
  'p.source_org',
  'p.target_org_id',
  'o.slug as target_org_slug',
  'p.families',
  'p.prune',
  'p.revision',
  'p.last_applied_at',
  'p.created_at',
  'p.updated_at',
  'p.created_by',
  'p.updated_by',
] as const;

export interface ProfileFilter {
  readonly q?: string | undefined;
  readonly sourceKind?: string | undefined;
  readonly targetOrgId?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** `platform_sync_profiles`: the platform's sync profiles, each with its target organization's slug. */
export class ProfilesRepo extends TransactionalRepo {
  constructor(knex: Knex) {
    super(knex);
  }

  private joined(db: Knex): Knex.QueryBuilder {
    return db(`${TABLE} as p`).leftJoin('organizations as o', 'o.id', 'p.target_org_id');
  }

  async list(filter: ProfileFilter): Promise<{ rows: ProfileRow[]; total: number }> {
    const query = this.joined(this.knex);
    if (filter.q !== undefined) query.whereRaw('strpos(lower(p.name), lower(?)) > 0', [filter.q]);
    if (filter.sourceKind !== undefined) query.where('p.source_kind', filter.sourceKind);
    if (filter.targetOrgId !== undefined) query.where('p.target_org_id', filter.targetOrgId);
    return pageWithTotal<ProfileRow>(this.knex, query, COLUMNS, [{ column: 'p.name', order: 'asc' }], filter);
  }

  async find(id: string, db: Knex = this.knex): Promise<ProfileRow | undefined> {
    return this.joined(db).select(COLUMNS).where('p.id', id).first();
  }

  /** The profile, its row locked until the transaction ends (a change, an apply, a grant serialize on it). */
  async lock(trx: Knex.Transaction, id: string): Promise<ProfileRow | undefined> {
    const locked = await trx(TABLE).where({ id }).forUpdate().first('id');
    return locked ? this.find(id, trx) : undefined;
  }

  async insert(trx: Knex.Transaction, row: Record<string, unknown>): Promise<ProfileRow> {
    const [inserted] = await trx(TABLE).insert(row).returning('id');
    return (await this.find((inserted as { id: string }).id, trx))!;
  }

  async update(trx: Knex.Transaction, id: string, change: Record<string, unknown>): Promise<ProfileRow> {
    await trx(TABLE)
      .where({ id })
      .update({ ...change, revision: trx.raw('revision + 1'), updated_at: trx.fn.now() });
    return (await this.find(id, trx))!;
  }

  async markApplied(trx: Knex.Transaction, id: string, at: Date): Promise<void> {
    await trx(TABLE).where({ id }).update({ last_applied_at: at });
  }

  async remove(trx: Knex.Transaction, id: string): Promise<void> {
    await trx(TABLE).where({ id }).delete();
  }
}
