import type { Knex } from 'knex';

export interface UserRow {
  readonly id: string;
  readonly sub: string;
  readonly username: string;
  readonly email: string | null;
  readonly display_name: string | null;
  readonly is_active: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly last_login_at: Date | null;
}

export interface MembershipView {
  readonly org_id: string;
  readonly slug: string;
  readonly name: string;
  readonly role: string;
  readonly source: 'manual' | 'idp';
}

export class UsersRepo {
  constructor(private readonly knex: Knex) {}

  /** Creates the profile on first sight of a subject, refreshes name, e-mail and login time after. */
  async upsertLogin(user: { sub: string; username: string; email: string }): Promise<UserRow> {
    const [row] = await this.knex('users')
      .insert({ sub: user.sub, username: user.username, email: user.email || null, last_login_at: this.knex.fn.now() })
      .onConflict('sub')
      .merge({ username: user.username, email: user.email || null, last_login_at: this.knex.fn.now(), updated_at: this.knex.fn.now() })
      .returning('*');
    return row as UserRow;
  }

  async findBySub(sub: string): Promise<UserRow | undefined> {
    return this.knex('users').where({ sub }).first();
  }

  async findById(id: string): Promise<UserRow | undefined> {
    return this.knex('users').where({ id }).first();
  }

  async findByUsername(username: string): Promise<UserRow | undefined> {
    return this.knex('users').where({ username }).orderBy('created_at').first();
  }

  async membershipsOf(userId: string): Promise<MembershipView[]> {
    return this.knex('org_memberships as m')
      .join('organizations as o', 'o.id', 'm.org_id')
      .where('m.user_id', userId)
      .andWhere('o.is_active', true)
      .orderBy('o.slug')
      .select('m.org_id', 'o.slug', 'o.name', 'm.role', 'm.source');
  }

  async membershipRole(userId: string, orgId: string): Promise<string | undefined> {
    const row = await this.knex('org_memberships').where({ user_id: userId, org_id: orgId }).first('role');
    return row?.role;
  }
}
