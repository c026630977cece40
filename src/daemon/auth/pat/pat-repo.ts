import type { Knex } from 'knex';

export interface PatRow {
  readonly id: string;
  readonly user_id: string;
  readonly org_id: string;
  readonly name: string;
  readonly token_prefix: string;
  readonly expires_at: Date | null;
  readonly last_used_at: Date | null;
  readonly revoked_at: Date | null;
  readonly created_by_sub: string | null;
  readonly created_at: Date;
  readonly username: string;
  readonly org_slug: string;
}

export interface PatOwnerRow extends PatRow {
  readonly user_sub: string;
  readonly user_email: string | null;
  readonly user_is_active: boolean;
}

const LISTED = [
  't.id',
  't.user_id',
  't.org_id',
  't.name',
  't.token_prefix',
  't.expires_at',
  't.last_used_at',
  't.revoked_at',
  't.created_by_sub',
  't.created_at',
  'u.username',
  'o.slug as org_slug',
];

export class PatRepo {
  constructor(private readonly knex: Knex) {}

  #joined() {
    return this.knex('personal_access_tokens as t').join('users as u', 'u.id', 't.user_id').join('organizations as o', 'o.id', 't.org_id');
  }

  async insert(row: {
    user_id: string;
    org_id: string;
    name: string;
    token_prefix: string;
    token_digest: string;
    expires_at: Date | null;
    created_by_sub: string;
  }): Promise<string> {
    const [inserted] = await this.knex('personal_access_tokens').insert(row).returning('id');
    return (inserted as { id: string }).id;
  }

  async findById(id: string): Promise<PatRow | undefined> {
    return this.#joined().where('t.id', id).first(LISTED);
  }

  async findByDigest(digest: string): Promise<PatOwnerRow | undefined> {
    return this.#joined()
      .where('t.token_digest', digest)
      .first([...LISTED, 'u.sub as user_sub', 'u.email as user_email', 'u.is_active as user_is_active']);
  }

  async list(filter: { userId?: string; orgId?: string; includeRevoked: boolean }): Promise<PatRow[]> {
    const query = this.#joined().select(LISTED).orderBy('t.created_at', 'desc');
    if (filter.userId) query.where('t.user_id', filter.userId);
    if (filter.orgId) query.where('t.org_id', filter.orgId);
    if (!filter.includeRevoked) query.whereNull('t.revoked_at');
    return query;
  }

  async revoke(id: string, bySub: string): Promise<boolean> {
    const count = await this.knex('personal_access_tokens')
      .where({ id })
      .whereNull('revoked_at')
      .update({ revoked_at: this.knex.fn.now(), revoked_by_sub: bySub });
    return count > 0;
  }

  async revokeAllOfUser(userId: string, bySub: string): Promise<string[]> {
    const rows = await this.knex('personal_access_tokens')
      .where({ user_id: userId })
      .whereNull('revoked_at')
      .update({ revoked_at: this.knex.fn.now(), revoked_by_sub: bySub })
      .returning('id');
    return (rows as { id: string }[]).map((r) => r.id);
  }

  /** Records use at most once a minute per token, so authentication does not write on every request. */
  async touch(id: string): Promise<void> {
    await this.knex('personal_access_tokens')
      .where({ id })
      .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', this.knex.raw("now() - interval '60 seconds'")))
      .update({ last_used_at: this.knex.fn.now() });
  }
}
