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

  /** How many of the organization's admins other than `userId` are active users (a deactivated one cannot act). */
  async otherActiveAdmins(trx: Tx, orgId: string, userId: string): Promise<number> {
    const [counted] = await trx('org_memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.org_id': orgId, 'm.role': 'admin', 'u.is_active': true })
      .whereNot('m.user_id', userId)
      .count<{ n: string | number }[]>('* as n');
    return Number(counted?.n ?? 0);
  }

  /**
   * Active users without a membership in the organization, optionally whose username or e-mail starts
   * with `prefix`. With `visibleTo` (an organization admin's subject, not a platform admin) the prefix
   * search covers only users the caller may already know of: users with no membership anywhere, and
   * members of an organization the caller administers; anyone else is found only by an exact username
   * or e-mail (case-insensitive), so other tenants' people cannot be listed.
   */
  async addable(
    orgId: string,
    filter: { prefix?: string | undefined; limit: number; visibleTo?: string | undefined },
  ): Promise<AddableUserRow[]> {
    const knex = this.knex;
    const query = knex('users as u')
      .where('u.is_active', true)
      .whereNotExists(knex('org_memberships as m').whereRaw('m.user_id = u.id').andWhere('m.org_id', orgId).select(knex.raw('1')))
      .select('u.id', 'u.username', 'u.email', 'u.display_name')
      .orderBy('u.username')
      .orderBy('u.id')
      .limit(filter.limit);
    const { prefix, visibleTo } = filter;
    const matchesPrefix = (q: Knex.QueryBuilder) => {
      const pattern = likePrefix(prefix!);
      return q.whereILike('u.username', pattern).orWhereILike('u.email', pattern);
    };
    if (visibleTo === undefined) {
      if (prefix) query.where(matchesPrefix);
      return query;
    }
    const knownToCaller = (q: Knex.QueryBuilder) =>
      q
        .whereNotExists(knex('org_memberships as any_m').whereRaw('any_m.user_id = u.id').select(knex.raw('1')))
        .orWhereExists(
          knex('org_memberships as theirs')
            .join('org_memberships as mine', 'mine.org_id', 'theirs.org_id')
            .join('users as me', 'me.id', 'mine.user_id')
            .whereRaw('theirs.user_id = u.id')
            .andWhere({ 'me.sub': visibleTo, 'mine.role': 'admin' })
            .select(knex.raw('1')),
        );
    query.where((q) => {
      q.where((known) => (prefix ? known.where(knownToCaller).andWhere(matchesPrefix) : known.where(knownToCaller)));
      if (prefix) q.orWhereRaw('lower(u.username) = lower(?)', [prefix]).orWhereRaw('lower(u.email) = lower(?)', [prefix]);
    });
    return query;
  }
}
