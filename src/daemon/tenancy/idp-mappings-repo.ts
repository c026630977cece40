import type { Knex } from 'knex';
import type { CandidateMapping, ExistingMembership } from '../../shared/tenancy/sync-plan.js';
import { MAPPINGS_CHANNEL, notify } from '../db/channels.js';

export interface IdpMappingRow {
  readonly id: string;
  readonly org_id: string;
  readonly claim: string;
  readonly value: string;
  readonly role: string;
  readonly is_active: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** A transaction of this repository; services pass it back without knowing what it is. */
export type IdpMappingsTx = Knex.Transaction;

interface CandidateRow {
  readonly id: string;
  readonly org_id: string;
  readonly claim: string;
  readonly value: string;
  readonly role: string;
}

function candidates(rows: readonly CandidateRow[]): CandidateMapping[] {
  return rows.map((r) => ({ id: r.id, orgId: r.org_id, claim: r.claim, value: r.value, role: r.role }));
}

const COLUMNS = ['id', 'org_id', 'claim', 'value', 'role', 'is_active', 'created_at', 'updated_at'] as const;

/**
 * The `org_idp_mappings` table, plus the few reads of memberships and organizations that sync and its
 * preview need. Writes take the caller's transaction so the audit entry commits with them.
 */
export class IdpMappingsRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: IdpMappingsTx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  async list(orgId: string, filter: { active?: boolean | undefined } = {}): Promise<IdpMappingRow[]> {
    const query = this.knex('org_idp_mappings')
      .where({ org_id: orgId })
      .select(COLUMNS)
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    if (filter.active !== undefined) query.andWhere({ is_active: filter.active });
    return query;
  }

  /**
   * Inserts, or answers undefined when (org, claim, value) already exists. `ON CONFLICT DO NOTHING`
   * rather than catching the unique violation: on PostgreSQL a failed statement would abort the
   * surrounding transaction.
   */
  async insert(
    trx: IdpMappingsTx,
    row: { org_id: string; claim: string; value: string; role: string; is_active: boolean },
  ): Promise<IdpMappingRow | undefined> {
    const [inserted] = await trx('org_idp_mappings').insert(row).onConflict(['org_id', 'claim', 'value']).ignore().returning(COLUMNS);
    return inserted as IdpMappingRow | undefined;
  }

  /** One mapping of one organization, locked for the rest of the transaction. */
  async lockOfOrg(trx: IdpMappingsTx, orgId: string, id: string): Promise<IdpMappingRow | undefined> {
    return trx('org_idp_mappings').where({ id, org_id: orgId }).forUpdate().first(COLUMNS);
  }

  async update(
    trx: IdpMappingsTx,
    id: string,
    change: { role?: string | undefined; is_active?: boolean | undefined },
  ): Promise<IdpMappingRow> {
    const set: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (change.role !== undefined) set.role = change.role;
    if (change.is_active !== undefined) set.is_active = change.is_active;
    const [row] = await trx('org_idp_mappings').where({ id }).update(set).returning(COLUMNS);
    return row as IdpMappingRow;
  }

  async deleteOfOrg(trx: IdpMappingsTx, orgId: string, id: string): Promise<IdpMappingRow | undefined> {
    const [row] = await trx('org_idp_mappings').where({ id, org_id: orgId }).delete().returning(COLUMNS);
    return row as IdpMappingRow | undefined;
  }

  /**
   * Every active mapping of an active organization whose claim is `claim` and whose value is one of
   * `values` (exact, case-sensitive): one query, served by the (claim, value) index. The mapping index
   * answers the same from memory, and uses this until its first load.
   */
  async activeMatching(claim: string, values: readonly string[]): Promise<CandidateMapping[]> {
    const distinct = [...new Set(values)];
    if (distinct.length === 0) return [];
    // One array parameter instead of one per value: a token may carry hundreds of groups.
    return candidates(await this.#active().where('m.claim', claim).whereRaw('m.value = ANY(?::text[])', [distinct]));
  }

  /** Every active mapping of an active organization: what the mapping index holds. */
  async allActive(): Promise<CandidateMapping[]> {
    return candidates(await this.#active());
  }

  /** Tells every instance, when `trx` commits, to reload its mapping index. */
  async notifyChanged(trx: IdpMappingsTx, orgId: string): Promise<void> {
    await notify(trx, MAPPINGS_CHANNEL, orgId);
  }

  /** One definition of "active" for the query and the index, so they cannot filter differently. */
  #active(): Knex.QueryBuilder<CandidateRow, CandidateRow[]> {
    return this.knex('org_idp_mappings as m')
      .join('organizations as o', 'o.id', 'm.org_id')
      .where('m.is_active', true)
      .andWhere('o.is_active', true)
      .select('m.id', 'm.org_id', 'm.claim', 'm.value', 'm.role');
  }

  /**
   * A user's memberships in active organizations, as sync sees them. Inactive organizations are left
   * out here as in `activeMatching`, so sync neither adds to nor removes from a deactivated organization.
   */
  async membershipsOf(userId: string): Promise<ExistingMembership[]> {
    const rows: { org_id: string; role: string; source: 'manual' | 'idp' }[] = await this.knex('org_memberships as m')
      .where('m.user_id', userId)
      // A subquery per membership rather than a join: the embedded database never gathers statistics, and
      // without them the planner joined by scanning every organization at each login.
      .whereRaw('(SELECT o.is_active FROM organizations o WHERE o.id = m.org_id)')
      .select('m.org_id', 'm.role', 'm.source');
    return rows.map((r) => ({ orgId: r.org_id, role: r.role, source: r.source }));
  }

  /** The organizations in which the (active) user with subject `sub` holds the `admin` membership role. */
  async adminOrgIdsOf(sub: string): Promise<string[]> {
    const rows: { org_id: string }[] = await this.knex('org_memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where('u.sub', sub)
      .andWhere('u.is_active', true)
      .andWhere('m.role', 'admin')
      .select('m.org_id');
    return rows.map((r) => r.org_id);
  }

  async orgsByIds(ids: readonly string[]): Promise<{ id: string; slug: string }[]> {
    if (ids.length === 0) return [];
    return this.knex('organizations')
      .whereIn('id', [...new Set(ids)])
      .select('id', 'slug');
  }
}
