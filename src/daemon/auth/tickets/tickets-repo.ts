import type { Knex } from 'knex';

export class TicketsRepo {
  constructor(private readonly knex: Knex) {}

  async insert(row: {
    ticket_digest: string;
    user_sub: string;
    pat_id: string | null;
    principal_json: Record<string, unknown>;
    ttlSeconds: number;
  }): Promise<Date> {
    const [inserted] = await this.knex('stream_tickets')
      .insert({
        ticket_digest: row.ticket_digest,
        user_sub: row.user_sub,
        pat_id: row.pat_id,
        principal_json: JSON.stringify(row.principal_json),
        expires_at: this.knex.raw(`now() + make_interval(secs => ?)`, [row.ttlSeconds]),
      })
      .returning('expires_at');
    return (inserted as { expires_at: Date }).expires_at;
  }

  /**
   * Deletes the user's active tickets beyond the newest `keep`. Run after the insert has committed, so
   * concurrent issuances each see the others' tickets and the user ends with at most `keep` active.
   */
  async evictBeyond(userSub: string, keep: number): Promise<void> {
    const active = this.knex('stream_tickets')
      .select('id')
      .where({ user_sub: userSub })
      .whereNull('consumed_at')
      .andWhere('expires_at', '>', this.knex.fn.now())
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .offset(keep);
    await this.knex('stream_tickets').whereIn('id', active).delete();
  }

  /** Removes the user's tickets that can no longer be redeemed. */
  async purgeDead(userSub: string): Promise<void> {
    await this.knex('stream_tickets')
      .where({ user_sub: userSub })
      .andWhere((q) => q.whereNotNull('consumed_at').orWhere('expires_at', '<=', this.knex.fn.now()))
      .delete();
  }

  /**
   * Consumes a ticket in one statement: of any number of concurrent redemptions, exactly one gets the row.
   * The credential that obtained it must still be live, read now from the database (so on every
   * instance at once): its user not deactivated, its personal access token (if any) neither revoked nor
   * expired. A ticket that fails that is left unconsumed and answers like an unknown one.
   */
  async consume(digest: string): Promise<{ wire: Record<string, unknown>; patId: string | null } | undefined> {
    const knex = this.knex;
    const rows = await knex('stream_tickets')
      .where({ ticket_digest: digest })
      .whereNull('consumed_at')
      .andWhere('expires_at', '>', knex.fn.now())
      .whereNotExists(
        knex('users').select(knex.raw('1')).whereRaw('users.sub = stream_tickets.user_sub').andWhere('users.is_active', false),
      )
      .andWhere((q) =>
        q.whereNull('pat_id').orWhereExists(
          knex('personal_access_tokens')
            .select(knex.raw('1'))
            .whereRaw('personal_access_tokens.id = stream_tickets.pat_id')
            .whereNull('personal_access_tokens.revoked_at')
            .andWhere((live) =>
              live.whereNull('personal_access_tokens.expires_at').orWhere('personal_access_tokens.expires_at', '>', knex.fn.now()),
            ),
        ),
      )
      .update({ consumed_at: this.knex.fn.now() })
      .returning(['principal_json', 'pat_id']);
    const row = (rows as { principal_json: Record<string, unknown> | string; pat_id: string | null }[])[0];
    if (!row) return undefined;
    const wire = typeof row.principal_json === 'string' ? (JSON.parse(row.principal_json) as Record<string, unknown>) : row.principal_json;
    return { wire, patId: row.pat_id };
  }
}
