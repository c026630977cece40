import type { Knex } from 'knex';
import type { Plan } from '../../../shared/api/config-exchange.js';
import type { Resolution, SyncChange } from '../../../shared/api/platform-sync-plans.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';

/** A change as the plan row keeps it: the engine's before/after stay in `engine_plan`. */
export type StoredChange = Omit<SyncChange, 'resolution'>;

export interface PlanRow {
  readonly id: string;
  readonly profile_id: string;
  readonly profile_revision: number;
  readonly fingerprint: string;
  readonly source_sha256: string;
  readonly bundle: string;
  readonly prune: boolean;
  readonly summary: Plan['summary'];
  readonly engine_plan: Plan;
  readonly changes: StoredChange[];
  /** `{family: {key: sha256}}` of every item the source held for the plan's families. */
  readonly desired_hashes: Record<string, Record<string, string>>;
  readonly applied_at: Date | null;
  readonly created_at: Date;
  readonly created_by: string | null;
}

export interface ResolutionRow {
  readonly profile_id: string;
  readonly change_id: string;
  readonly resolution: Resolution;
  readonly resolved_at: Date;
  readonly resolved_by: string | null;
}

const PLANS = 'platform_sync_plans';
const RESOLUTIONS = 'platform_sync_resolutions';
const APPLIED = 'platform_sync_applied_items';

/** A profile's saved plans, its conflict resolutions, and what its last apply left (applied item hashes). */
export class PlansRepo extends TransactionalRepo {
  constructor(knex: Knex) {
    super(knex);
  }

  async insert(row: Omit<PlanRow, 'applied_at' | 'created_at'>): Promise<PlanRow> {
    const [inserted] = await this.knex(PLANS)
      .insert({
        ...row,
        summary: JSON.stringify(row.summary),
        engine_plan: JSON.stringify(row.engine_plan),
        changes: JSON.stringify(row.changes),
        desired_hashes: JSON.stringify(row.desired_hashes),
      })
      .returning('*');
    return inserted as PlanRow;
  }

  async find(id: string, db: Knex = this.knex): Promise<PlanRow | undefined> {
    return db(PLANS).where({ id }).first();
  }

  async lock(trx: Knex.Transaction, id: string): Promise<PlanRow | undefined> {
    return trx(PLANS).where({ id }).forUpdate().first();
  }

  async markApplied(trx: Knex.Transaction, id: string, at: Date): Promise<void> {
    await trx(PLANS).where({ id }).update({ applied_at: at });
  }

  /** Whether some plan of the profile lists `changeId` as a conflict (only those can be resolved). */
  async conflictPlanned(profileId: string, changeId: string): Promise<boolean> {
    const found = await this.knex(PLANS)
      .where({ profile_id: profileId })
      .whereRaw('changes @> ?::jsonb', [JSON.stringify([{ change_id: changeId, conflict: true }])])
      .first('id');
    return found !== undefined;
  }

  async resolutions(profileId: string, db: Knex = this.knex): Promise<Map<string, ResolutionRow>> {
    const rows: ResolutionRow[] = await db(RESOLUTIONS).where({ profile_id: profileId });
    return new Map(rows.map((row) => [row.change_id, row]));
  }

  async resolve(trx: Knex.Transaction, row: Omit<ResolutionRow, 'resolved_at'>, at: Date): Promise<ResolutionRow> {
    const [saved] = await trx(RESOLUTIONS)
      .insert({ ...row, resolved_at: at })
      .onConflict(['profile_id', 'change_id'])
      .merge(['resolution', 'resolved_at', 'resolved_by'])
      .returning('*');
    return saved as ResolutionRow;
  }

  /** `family\0key` -> the hash the profile's last apply left. */
  async applied(profileId: string, db: Knex = this.knex): Promise<Map<string, string>> {
    const rows: { family: string; item_key: string; sha256: string }[] = await db(APPLIED)
      .where({ profile_id: profileId })
      .select('family', 'item_key', 'sha256');
    return new Map(rows.map((row) => [`${row.family}\u0000${row.item_key}`, row.sha256]));
  }

  async appliedRows(profileId: string): Promise<{ family: string; item_key: string; sha256: string }[]> {
    return this.knex(APPLIED).where({ profile_id: profileId }).select('family', 'item_key', 'sha256').orderBy(['family', 'item_key']);
  }

  /**
   * Records what an apply left for the families it covered: their previous hashes replaced by the source's
   * items (a kept-target item keeps its old hash: it stays drifted, and conflicts again when the source moves).
   */
  async replaceApplied(
    trx: Knex.Transaction,
    profileId: string,
    runId: string,
    families: readonly string[],
    hashes: readonly { family: string; key: string; sha256: string }[],
  ): Promise<void> {
    await trx(APPLIED).where({ profile_id: profileId }).whereIn('family', families).delete();
    for (let at = 0; at < hashes.length; at += 500) {
      const rows = hashes
        .slice(at, at + 500)
        .map((h) => ({ profile_id: profileId, family: h.family, item_key: h.key, sha256: h.sha256, run_id: runId }));
      await trx(APPLIED).insert(rows);
    }
  }
}
