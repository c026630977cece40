import type { Knex } from 'knex';
import { newestFirst, pageWithTotal } from '../../db/page.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';

export interface AuthorizationRow {
  readonly id: string;
  readonly profile_id: string;
  readonly plan_id: string | null;
  readonly reason: string;
  readonly granted_at: Date;
  readonly granted_by: string | null;
  readonly expires_at: Date;
  readonly revoked_at: Date | null;
  readonly revoked_by: string | null;
  readonly revoke_reason: string | null;
  readonly use_count: number;
  readonly last_used_at: Date | null;
}

const TABLE = 'platform_sync_authorizations';
const COLUMNS = [
  'id',
  'profile_id',
  'plan_id',
  'reason',
  'granted_at',
  'granted_by',
  'expires_at',
  'revoked_at',
  'revoked_by',
  'revoke_reason',
  'use_count',
  'last_used_at',
] as const;

export type AuthorizationState = 'active' | 'expired' | 'revoked';

export interface AuthorizationFilter {
  readonly state?: AuthorizationState | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** `platform_sync_authorizations`: destructive authorizations of the profiles, revoked and expired ones kept. */
export class AuthorizationsRepo extends TransactionalRepo {
  constructor(knex: Knex) {
    super(knex);
  }

  async list(profileId: string, filter: AuthorizationFilter, now: Date): Promise<{ rows: AuthorizationRow[]; total: number }> {
    const query = this.knex(TABLE).where('profile_id', profileId);
    if (filter.state === 'revoked') query.whereNotNull('revoked_at');
    if (filter.state === 'expired') query.whereNull('revoked_at').where('expires_at', '<=', now);
    if (filter.state === 'active') query.whereNull('revoked_at').where('expires_at', '>', now);
    return pageWithTotal<AuthorizationRow>(this.knex, query, COLUMNS, newestFirst('granted_at'), filter);
  }

  async lock(trx: Knex.Transaction, profileId: string, id: string): Promise<AuthorizationRow | undefined> {
    return trx(TABLE).select(COLUMNS).where({ profile_id: profileId, id }).forUpdate().first();
  }

  /**
   * The live authorization an apply of `planId` may use, locked: unrevoked, unexpired, for this plan or for
   * the whole profile; the one expiring last when several are.
   */
  async usable(trx: Knex.Transaction, profileId: string, planId: string, now: Date): Promise<AuthorizationRow | undefined> {
    return trx(TABLE)
      .select(COLUMNS)
      .where('profile_id', profileId)
      .whereNull('revoked_at')
      .where('expires_at', '>', now)
      .where((q) => q.whereNull('plan_id').orWhere('plan_id', planId))
      .orderBy('expires_at', 'desc')
      .forUpdate()
      .first();
  }

  /** The newest authorization of the profile that covers `planId` whatever its state, to say why none is usable. */
  async latest(trx: Knex.Transaction, profileId: string, planId: string): Promise<AuthorizationRow | undefined> {
    return trx(TABLE)
      .select(COLUMNS)
      .where('profile_id', profileId)
      .where((q) => q.whereNull('plan_id').orWhere('plan_id', planId))
      .orderBy('granted_at', 'desc')
      .first();
  }

  async insert(trx: Knex.Transaction, row: Record<string, unknown>): Promise<AuthorizationRow> {
    const [inserted] = await trx(TABLE)
      .insert(row)
      .returning([...COLUMNS]);
    return inserted as AuthorizationRow;
  }

  async revoke(trx: Knex.Transaction, id: string, change: { revoked_at: Date; revoked_by: string | null; revoke_reason: string | null }) {
    const [updated] = await trx(TABLE)
      .where({ id })
      .update(change)
      .returning([...COLUMNS]);
    return updated as AuthorizationRow;
  }

  async recordUse(trx: Knex.Transaction, id: string, at: Date): Promise<void> {
    await trx(TABLE)
      .where({ id })
      .update({ use_count: trx.raw('use_count + 1'), last_used_at: at });
  }

  /** Whether the plan is one of the profile's (an authorization can be bound only to those). */
  async planOfProfile(trx: Knex.Transaction, profileId: string, planId: string): Promise<boolean> {
    return (await trx('platform_sync_plans').where({ id: planId, profile_id: profileId }).first('id')) !== undefined;
  }
}
