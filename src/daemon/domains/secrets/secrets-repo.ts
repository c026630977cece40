import type { Knex } from 'knex';
import { secretLocation } from '../../../shared/secrets/reference.js';
import { prepared } from '../../db/prepared.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';

/** A secret row with what its views need from its organization and backend. */
export interface SecretRecord {
  readonly id: string;
  readonly org_id: string;
  readonly org_slug: string;
  readonly name: string;
  readonly description: string | null;
  readonly backend_id: string;
  readonly backend_name: string;
  readonly backend_type: string;
  readonly backend_scheme: string;
  readonly path: string;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
}

export type SecretsTx = Knex.Transaction;

const SELECT = [
  's.id',
  's.org_id',
  'o.slug as org_slug',
  's.name',
  's.description',
  's.backend_id',
  'b.name as backend_name',
  'b.type as backend_type',
  'b.scheme as backend_scheme',
  's.path',
  's.created_at',
  's.updated_at',
  's.created_by',
  's.updated_by',
];

/** The `secrets` table (metadata only: values live in the backends). */
export class SecretsRepo extends TransactionalRepo {
  async list(
    orgId: string,
    page: { limit: number; offset: number; backendId?: string | undefined; name?: string | undefined },
  ): Promise<{ rows: SecretRecord[]; total: number }> {
    const filter = (query: Knex.QueryBuilder) => {
      query.where('s.org_id', orgId);
      if (page.backendId) query.andWhere('s.backend_id', page.backendId);
      if (page.name !== undefined) query.andWhere('s.name', page.name);
      return query;
    };
    const [count] = await filter(this.knex('secrets as s')).count<{ n: string | number }[]>('* as n');
    const rows: SecretRecord[] = await filter(this.#joined(this.knex))
      .orderBy([{ column: 's.name' }, { column: 's.id' }])
      .limit(page.limit)
      .offset(page.offset);
    return { rows, total: Number(count?.n ?? 0) };
  }

  async findOfOrg(orgId: string, id: string, tx?: SecretsTx): Promise<SecretRecord | undefined> {
    return this.#joined(tx ?? this.knex)
      .where({ 's.id': id, 's.org_id': orgId })
      .first();
  }

  async findById(id: string): Promise<SecretRecord | undefined> {
    return this.#joined(this.knex).where('s.id', id).first().options(prepared('svc_secret_by_id'));
  }

  async findByName(orgId: string, name: string): Promise<SecretRecord | undefined> {
    return this.#joined(this.knex).where({ 's.org_id': orgId, 's.name': name }).first();
  }

  async findByLocation(orgId: string, scheme: string, path: string): Promise<SecretRecord | undefined> {
    return this.#joined(this.knex).where({ 's.org_id': orgId, 'b.scheme': scheme, 's.path': path }).first();
  }

  /** The secret of the organization, locked until the transaction ends (writes to one secret queue up). */
  async lockOfOrg(trx: SecretsTx, orgId: string, id: string): Promise<SecretRecord | undefined> {
    const locked = await trx('secrets').where({ id, org_id: orgId }).forUpdate().first('id');
    return locked ? this.findOfOrg(orgId, id, trx) : undefined;
  }

  /** Which of name and (backend, path) another secret of the organization already has. */
  async clash(trx: SecretsTx, orgId: string, name: string, backendId: string, path: string): Promise<'name' | 'path' | undefined> {
    const rows: { name: string; backend_id: string; path: string }[] = await trx('secrets')
      .where({ org_id: orgId })
      .andWhere((q) => q.where({ name }).orWhere({ backend_id: backendId, path }))
      .select('name', 'backend_id', 'path');
    if (rows.some((r) => r.name === name)) return 'name';
    return rows.length > 0 ? 'path' : undefined;
  }

  /** Inserts, or answers undefined when the name or the folder is taken (a concurrent insert won). */
  async insert(
    trx: SecretsTx,
    row: { org_id: string; name: string; description: string | null; backend_id: string; path: string; created_by: string | null },
  ): Promise<string | undefined> {
    const [inserted] = await trx('secrets')
      .insert({ ...row, updated_by: row.created_by })
      .onConflict()
      .ignore()
      .returning('id');
    return (inserted as { id: string } | undefined)?.id;
  }

  async touch(trx: SecretsTx, id: string, change: { description?: string | null | undefined; updated_by: string | null }): Promise<void> {
    const set: Record<string, unknown> = { updated_at: trx.fn.now(), updated_by: change.updated_by };
    if (change.description !== undefined) set.description = change.description;
    await trx('secrets').where({ id }).update(set);
  }

  async delete(trx: SecretsTx, id: string): Promise<void> {
    await trx('secrets').where({ id }).delete();
  }

  /** The folders of the organization's secrets in one backend. */
  async pathsIn(orgId: string, backendId: string): Promise<Set<string>> {
    const rows: { path: string }[] = await this.knex('secrets').where({ org_id: orgId, backend_id: backendId }).select('path');
    return new Set(rows.map((r) => r.path));
  }

  /** Secret rows of a backend by location, for marking the backend's items as referenced. */
  async locationsIn(backendId: string): Promise<Set<string>> {
    const rows: { slug: string; path: string }[] = await this.knex('secrets as s')
      .join('organizations as o', 'o.id', 's.org_id')
      .where('s.backend_id', backendId)
      .select('o.slug', 's.path');
    return new Set(rows.map((r) => secretLocation(r.slug, r.path)));
  }

  #joined(db: Knex) {
    return db('secrets as s')
      .join('organizations as o', 'o.id', 's.org_id')
      .join('secret_backends as b', 'b.id', 's.backend_id')
      .select(SELECT);
  }
}
