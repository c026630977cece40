import type { Knex } from 'knex';
import { newestFirst, pageWithTotal } from '../../db/page.js';

export interface SyncRunRow {
  readonly id: string;
  readonly profile_id: string;
  readonly plan_id: string | null;
  readonly kind: 'apply' | 'export';
  readonly status: 'succeeded' | 'failed';
  readonly correlation_id: string;
  readonly counts: { created: number; updated: number; deleted: number };
  readonly authorization_id: string | null;
  readonly error: { code: string; detail: string | null } | null;
  readonly actor_sub: string | null;
  readonly actor_username: string | null;
  readonly started_at: Date;
  readonly finished_at: Date | null;
}

const TABLE = 'platform_sync_runs';
const COLUMNS = [
  'id',
  'profile_id',
  'plan_id',
  'kind',
  'status',
  'correlation_id',
  'counts',
  'authorization_id',
  'error',
  'actor_sub',
  'actor_username',
  'started_at',
  'finished_at',
] as const;

export interface SyncRunFilter {
  readonly kind?: string | undefined;
  readonly status?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

export interface NewSyncRun {
  readonly profile_id: string;
  readonly plan_id: string | null;
  readonly kind: SyncRunRow['kind'];
  readonly status: SyncRunRow['status'];
  readonly correlation_id: string;
  readonly counts: SyncRunRow['counts'];
  readonly authorization_id: string | null;
  readonly error: SyncRunRow['error'];
  readonly actor_sub: string | null;
  readonly actor_username: string | null;
  readonly started_at: Date;
  readonly finished_at: Date;
}

/** `platform_sync_runs`: what each apply and export of a profile did, newest first. */
export class SyncRunsRepo {
  constructor(private readonly knex: Knex) {}

  async list(profileId: string, filter: SyncRunFilter): Promise<{ rows: SyncRunRow[]; total: number }> {
    const query = this.knex(TABLE).where('profile_id', profileId);
    if (filter.kind !== undefined) query.where('kind', filter.kind);
    if (filter.status !== undefined) query.where('status', filter.status);
    return pageWithTotal<SyncRunRow>(this.knex, query, COLUMNS, newestFirst('started_at'), filter);
  }

  async find(id: string): Promise<SyncRunRow | undefined> {
    return this.knex(TABLE).select(COLUMNS).where({ id }).first();
  }

  /** Records a finished run; inside the apply's transaction when it succeeded, on its own when it failed. */
  async insert(run: NewSyncRun, db: Knex = this.knex): Promise<SyncRunRow> {
    const [inserted] = await db(TABLE)
      .insert({ ...run, counts: JSON.stringify(run.counts), error: run.error === null ? null : JSON.stringify(run.error) })
      .returning([...COLUMNS]);
    return inserted as SyncRunRow;
  }
}
