import type { Knex } from 'knex';
import type { MisfirePolicy } from '../../../shared/api/schedules.js';
import type { AuditRow } from '../../audit/audit-repo.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import { SoftDeleteTable, whereLive } from '../../db/soft-delete.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';
import { HOUSEKEEPING_BATCH } from '../maintenance/housekeeping-jobs.js';
import { admissionCompanion, type AdmissionCompanion } from '../runs/admission-companion.js';

export type SchedulesTx = Knex.Transaction;

export interface FireError {
  readonly code: string;
  readonly message: string;
  readonly due_at: string;
}

export interface ScheduleRow {
  readonly id: string;
  readonly org_id: string;
  readonly flow_id: string | null;
  readonly flow_version: number | null;
  readonly name: string;
  readonly description: string | null;
  readonly cron: string;
  readonly timezone: string;
  readonly params_json: Record<string, unknown>;
  readonly targets_json: Record<string, string[]>;
  readonly enabled: boolean;
  readonly misfire_policy: MisfirePolicy;
  readonly next_fire_at: Date | null;
  readonly last_fired_at: Date | null;
  readonly last_run_id: string | null;
  readonly last_fire_error_json: FireError | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly deleted_at: Date | null;
  readonly deleted_by: string | null;
}

/** A schedule with its flow's name (null when the flow row is gone or soft-deleted). */
export interface ScheduleWithFlow extends ScheduleRow {
  readonly flow_name: string | null;
}

export interface ScheduleFilter {
  readonly flowId?: string | undefined;
  readonly enabled?: boolean | undefined;
  readonly q?: string | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number;
  readonly offset: number;
}

const COLUMNS = [
  'id',
  'org_id',
  'flow_id',
  'flow_version',
  'name',
  'description',
  'cron',
  'timezone',
  'params_json',
  'targets_json',
  'enabled',
  'misfire_policy',
  'next_fire_at',
  'last_fired_at',
  'last_run_id',
  'last_fire_error_json',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
  'deleted_at',
  'deleted_by',
] as const;

const SCHEDULES = new SoftDeleteTable<ScheduleRow>('schedules', COLUMNS);

/**
 * The schedule's organization is active: a deactivated one's schedules do not fire (its members, platform
 * admins included, can no longer see or pause them). Reactivated, a due one is a misfire like any other.
 */
const IN_ACTIVE_ORG = 'EXISTS (SELECT 1 FROM organizations o WHERE o.id = schedules.org_id AND o.is_active)';

/**
 * A fire's rows in run admission's one statement: the gate row (schedule, due time) naming the run, the
 * `schedule.fired` entry, and the advance of `next_fire_at` fenced by the due time it consumes. A racing
 * fire of the same due time gets no gate row and so no run; the advance then finds `next_fire_at` moved.
 */
const FIRE = admissionCompanion({
  name: 'schedule_fire',
  columns: { schedule_id: 'uuid', due_at: 'timestamptz', outcome: 'text', advance_to: 'timestamptz' },
  gate: {
    into: 'schedule_fires',
    columns: ['schedule_id', 'due_at', 'run_id', 'outcome'],
    key: 'run_id',
    onConflictDoNothing: { columns: ['schedule_id', 'due_at'] },
  },
  auditEntry: true,
  afterWritten: [
    (written) =>
      `UPDATE schedules s SET next_fire_at = ${written.column('advance_to')}, last_fired_at = ${written.column('due_at')},
              last_run_id = ${written.column('run_id')}, last_fire_error_json = NULL
         FROM ${written.name} WHERE s.id = ${written.column('schedule_id')} AND s.next_fire_at = ${written.column('due_at')}`,
  ],
});

/** `schedules` and the `schedule_fires` gate rows. */
export class SchedulesRepo extends TransactionalRepo {
  private withFlow(db: Knex | SchedulesTx = this.knex): Knex.QueryBuilder {
    return db('schedules as s')
      .leftJoin('flows as f', 'f.id', 's.flow_id')
      .select(...COLUMNS.map((c) => `s.${c}`), db.raw('CASE WHEN f.deleted_at IS NULL THEN f.name END as flow_name'));
  }

  /** One schedule of the organization, soft-deleted included (callers decide). */
  async find(orgId: string, id: string, db: Knex | SchedulesTx = this.knex): Promise<ScheduleWithFlow | undefined> {
    return this.withFlow(db).where({ 's.org_id': orgId, 's.id': id }).first();
  }

  /** One schedule of an active organization by id alone (the scheduler's view: it acts for every organization). */
  async byId(id: string, db: Knex | SchedulesTx = this.knex): Promise<ScheduleRow | undefined> {
    return db('schedules').where({ id }).whereRaw(IN_ACTIVE_ORG).first(COLUMNS);
  }

  async list(orgId: string, filter: ScheduleFilter): Promise<{ rows: ScheduleWithFlow[]; total: number }> {
    const narrow = (query: Knex.QueryBuilder) => {
      query.where('s.org_id', orgId);
      if (!filter.includeDeleted) whereLive(query, 's');
      if (filter.flowId) query.where('s.flow_id', filter.flowId);
      if (filter.enabled !== undefined) query.where('s.enabled', filter.enabled);
      if (filter.q) query.whereRaw(`position(lower(?) in lower(s.name)) > 0`, [filter.q]);
      return query;
    };
    const [rows, count] = await Promise.all([
      narrow(this.withFlow())
        .orderBy([{ column: 's.name' }, { column: 's.id' }])
        .limit(filter.limit)
        .offset(filter.offset),
      narrow(this.knex('schedules as s')).count<{ n: string | number }[]>({ n: '*' }),
    ]);
    return { rows: rows as ScheduleWithFlow[], total: Number(count[0]?.n ?? 0) };
  }

  async lock(trx: SchedulesTx, orgId: string, id: string): Promise<ScheduleRow | undefined> {
    return trx('schedules').where({ org_id: orgId, id }).forUpdate().first(COLUMNS);
  }

  async insert(trx: SchedulesTx, row: Record<string, unknown>): Promise<string> {
    const [inserted] = await trx('schedules').insert(row).returning('id');
    return (inserted as { id: string }).id;
  }

  async update(trx: SchedulesTx, id: string, change: Record<string, unknown>): Promise<void> {
    await trx('schedules')
      .where({ id })
      .update({ ...change, updated_at: trx.fn.now() });
  }

  async softDelete(trx: SchedulesTx, id: string, by: string | null): Promise<void> {
    await SCHEDULES.markDeleted(trx, [id], by, { next_fire_at: null, updated_at: trx.fn.now() });
  }

  async restore(trx: SchedulesTx, id: string, by: string | null, nextFireAt: Date | null): Promise<void> {
    await SCHEDULES.restore(trx, [id], by, { next_fire_at: nextFireAt });
  }

  /** Removes the schedule for good; its fire rows go with it (cascade). */
  async purge(trx: SchedulesTx, id: string): Promise<void> {
    await SCHEDULES.purge(trx, [id]);
  }

  /** Enabled live schedules of active organizations whose next fire time has come, oldest due first. */
  async due(now: Date, limit: number): Promise<ScheduleRow[]> {
    return this.knex('schedules')
      .where('enabled', true)
      .whereNull('deleted_at')
      .where('next_fire_at', '<=', now)
      .whereRaw(IN_ACTIVE_ORG)
      .orderBy([{ column: 'next_fire_at' }, { column: 'id' }])
      .limit(limit)
      .select(COLUMNS);
  }

  /** The earliest next fire time of any enabled live schedule of an active organization (the loop sleeps until then). */
  async earliestDue(): Promise<Date | null> {
    const row = await this.knex('schedules')
      .where('enabled', true)
      .whereNull('deleted_at')
      .whereNotNull('next_fire_at')
      .whereRaw(IN_ACTIVE_ORG)
      .min({ at: 'next_fire_at' })
      .first();
    return (row as { at: Date | null } | undefined)?.at ?? null;
  }

  /** The database for work that needs no transaction of its own (a fire's one statement). */
  get direct(): Knex {
    return this.knex;
  }

  /** A fire's rows in the run's admission statement (see `FIRE`). */
  fired(scheduleId: string, dueAt: Date, advanceTo: Date | null, entry: AuditRow): AdmissionCompanion {
    return FIRE.with(
      { schedule_id: scheduleId, due_at: dueAt.toISOString(), outcome: 'fired', advance_to: advanceTo?.toISOString() ?? null },
      entry,
    );
  }

  /**
   * A fire whose run was refused: its gate row (`failed`, with the reason) and, only if that row is new,
   * the advance fenced by the due time and the reason on the schedule. False when another scheduler had
   * already fired or failed this due time.
   */
  async recordFailedFire(trx: SchedulesTx, scheduleId: string, dueAt: Date, advanceTo: Date | null, error: FireError): Promise<boolean> {
    const inserted = await trx('schedule_fires')
      .insert({ schedule_id: scheduleId, due_at: dueAt, outcome: 'failed', error_json: JSON.stringify(error) })
      .onConflict(['schedule_id', 'due_at'])
      .ignore()
      .returning('schedule_id');
    if (inserted.length === 0) return false;
    await trx('schedules')
      .where({ id: scheduleId, next_fire_at: dueAt })
      .update({ next_fire_at: advanceTo, last_fired_at: dueAt, last_fire_error_json: JSON.stringify(error) });
    return true;
  }

  /** Moves `next_fire_at` from `fence` to `to` without a fire (missed times skipped); false when it had moved already. */
  async advance(trx: SchedulesTx, scheduleId: string, fence: Date, to: Date | null): Promise<boolean> {
    const changed = await trx('schedules').where({ id: scheduleId, next_fire_at: fence }).update({ next_fire_at: to });
    return changed > 0;
  }

  /**
   * Deletes fire rows whose due time is before `before`, in batches, keeping each schedule's newest fire.
   * A fire row is the gate of its due time (docs/schedules.md, "Firing: exactly once"): only a scheduler
   * that read that time as the schedule's `next_fire_at` tries to fire it, and once it has fired the fence
   * has moved past it for good, so a row older than the retention (a day at least) guards nothing any
   * more. The newest is kept all the same: it is the one a scheduler still holding a stale read would meet.
   */
  deleteFiresBefore(before: Date, batch: number = HOUSEKEEPING_BATCH): Promise<number> {
    const olderThanNewest =
      'due_at < (SELECT max(newest.due_at) FROM schedule_fires newest WHERE newest.schedule_id = schedule_fires.schedule_id)';
    return deleteInBatches(this.knex, 'schedule_fires', { sql: `due_at < ? AND ${olderThanNewest}`, bindings: [before] }, batch);
  }
}
