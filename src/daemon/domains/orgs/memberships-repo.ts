import type { Knex } from 'knex';
import type { Tx } from '../../tenancy/orgs-repo.js';

export type MembershipSource = 'manual' | 'idp';

/** A membership with the user it belongs to. */
export interface MemberRow {
  readonly user_id: string;
  readonly username: string;
  readonly email: string | null;
  readonly role: string;
  readonly source: MembershipSource;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export interface AddableUserRow {
  readonly id: string;
  readonly username: string;
  readonly email: string | null;
  readonly display_name: string | null;
}

const MEMBER_COLUMNS = ['m.user_id', 'u.username', 'u.email', 'm.role', 'm.source', 'm.created_at', 'm.updated_at'];

/** `%`, `_` and `\` in a search prefix are literal characters, not patterns. */
function likePrefix(value: string): string {
  return `${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Rows of `org_memberships` for the members API; writes run in the caller's transaction. */
export class MembershipsRepo {
  constructor(private readonly knex: Knex) {}

  #members(db: Knex) {
    return db('org_memberships as m').join('users as u', 'u.id', 'm.user_id');
  }

  async list(orgId: string, page: { limit: number; offset: number }): Promise<{ rows: MemberRow[]; total: number }> {
    const query = this.#members(this.knex).where('m.org_id', orgId);
    const [counted] = await query.clone().count<{ n: string | number }[]>('* as n');
    const rows = await query.select(MEMBER_COLUMNS).orderBy('u.username').orderBy('m.user_id').limit(page.limit).offset(page.offset);
    return { rows, total: Number(counted?.n ?? 0) };
  }

  async find(trx: Tx, orgId: string, userId: string): Promise<MemberRow | undefined> {
    return this.#members(trx).where({ 'm.org_id': orgId, 'm.user_id': userId }).first(MEMBER_COLUMNS);
  }

  /** Undefined when the user is already a member. */
  async insert(trx: Tx, row: { org_id: string; user_id: string; role: string; source: MembershipSource }): Promise<MemberRow | undefined> {
    const inserted = await trx('org_memberships').insert(row).onConflict(['user_id', 'org_id']).ignore().returning('id');
    return inserted.length > 0 ? this.find(trx, row.org_id, row.user_id) : undefined;
  }

  async setRole(trx: Tx, orgId: string, userId: string, role: string, source: MembershipSource): Promise<MemberRow | undefined> {
    await trx('org_memberships').where({ org_id: orgId, user_id: userId }).update({ role, source, updated_at: trx.fn.now() });
    return this.find(trx, orgId, userId);
  }

  async remove(trx: Tx, orgId: string, userId: string): Promise<boolean> {
    return (await trx('org_memberships').where({ org_id: orgId, user_id: userId }).delete()) > 0;
  }

  async adminCount(trx: Tx, orgId: string): Promise<number> {
    const [counted] = await trx('org_memberships').where({ org_id: orgId, role: 'admin' }).count<{ n: string | number }[]>('* as n');
    return Number(counted?.n ?? 0);
  }

  /** Active users without a membership in the organization, optionally whose username or e-mail starts with `prefix`. */
  async addable(orgId: string, filter: { prefix?: string | undefined; limit: number }): Promise<AddableUserRow[]> {
    const query = this.knex('users as u')
      .where('u.is_active', true)
      .whereNotExists(this.knex('org_memberships as m').whereRaw('m.user_id = u.id').andWhere('m.org_id', orgId).select(this.knex.raw('1')))
      .select('u.id', 'u.username', 'u.email', 'u.display_name')
      .orderBy('u.username')
      .orderBy('u.id')
      .limit(filter.limit);
    if (filter.prefix) {
      const pattern = likePrefix(filter.prefix);
      query.where((q) => q.whereILike('u.username', pattern).orWhereILike('u.email', pattern));
    }
    return query;
  }
}
