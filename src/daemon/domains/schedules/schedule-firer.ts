import type { DueSchedules, FireReport } from '../../../shared/api/schedules.js';
import { Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { boundedMemo } from '../../../shared/bounded-memo.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditEvent, AuditWriter } from '../../audit/audit-writer.js';
import type { Logger } from '../../logging/logger.js';
import { AdmissionGateClosed, type RunAdmission } from '../runs/run-admission.js';
import { CronClock } from './cron.js';
import { planFires } from './fire-plan.js';
import { scheduleRunRequest } from './schedule-run.js';
import type { Clock } from './schedules-service.js';
import type { ScheduleRow, SchedulesRepo } from './schedules-repo.js';

/** The actor of every fire: no user starts it. */
export const SCHEDULER_ACTOR = { sub: 'system:scheduler', username: 'system:scheduler' } as const;
const ACTION = 'internal:scheduler';

export interface FirerSettings {
  /** SERVICE_SCHEDULER_MISFIRE_GRACE_SECONDS, in milliseconds. */
  readonly graceMs: number;
  /** SERVICE_SCHEDULER_CATCH_UP_MAX. */
  readonly catchUpMax: number;
}

type Fire = FireReport['fires'][number];

/** Expressions parsed once each (a few per schedule's lifetime, fired again and again): bounded. */
const CLOCKS_KEPT = 4096;

/** Due schedules one pass looks at, at most: a backlog is worked off pass after pass. */
export const PASS_LIMIT = 500;

/**
 * Fires due schedules: the embedded loop's pass (`fireDue`) and an external scheduler's trigger
 * (`trigger`, fenced by the due time it read) call the same `fire`. Each fire is one statement of run
 * admission carrying the schedule's companion (schedules-repo.ts `FIRE`): its gate row, its entry, and the
 * advance of `next_fire_at`, so however many daemons and schedulers race a due time, one run is written.
 * A fire admission refuses (the flow deleted, never committed, targets gone, ...) is recorded as failed
 * with its reason, on the schedule too, and the schedule advances and keeps going.
 */
export class ScheduleFirer {
  /** Keyed by zone and expression; croner's parse costs more than the rest of a fire's CPU. */
  readonly #clocks = boundedMemo((key) => {
    const space = key.indexOf(' ');
    return CronClock.stored(key.slice(space + 1), key.slice(0, space));
  }, CLOCKS_KEPT);

  constructor(
    private readonly repo: SchedulesRepo,
    private readonly admission: RunAdmission,
    private readonly audit: AuditWriter,
    private readonly log: Logger,
    private readonly settings: FirerSettings,
    private readonly now: Clock,
  ) {}

  /** `GET /internal/schedules/due`: what an external scheduler should trigger now. */
  async due(limit: number): Promise<DueSchedules> {
    const now = this.now();
    const rows = await this.repo.due(now, limit);
    return {
      now: now.toISOString(),
      items: rows.map((row) => ({
        schedule_id: row.id,
        org_id: row.org_id,
        due_at: row.next_fire_at!.toISOString(),
        misfire_policy: row.misfire_policy,
      })),
    };
  }

  /** One pass of the loop: every due schedule (up to `PASS_LIMIT`) fired; one that fails is logged, the rest go on. */
  async fireDue(now: Date = this.now()): Promise<{ looked: number; reports: FireReport[] }> {
    const rows = await this.repo.due(now, PASS_LIMIT);
    const reports = await Promise.all(
      rows.map((row) =>
        this.fire(row, now).catch((error: unknown) => {
          this.log.warn({ err: error, schedule_id: row.id }, 'firing a schedule failed; trying again next pass');
          return undefined;
        }),
      ),
    );
    return { looked: rows.length, reports: reports.filter((r): r is FireReport => r !== undefined) };
  }

  /**
   * `POST /internal/schedules/{id}/trigger`: fires the schedule if `dueAt` is its next fire time and has
   * come (409 `schedule_fire_stale` / `schedule_not_due` otherwise, and when another scheduler won it).
   */
  async trigger(id: string, dueAt: Date, context: AuditContext | undefined): Promise<FireReport> {
    const row = isUuid(id) ? await this.repo.byId(id) : undefined;
    if (!row || row.deleted_at) throw problems.resourceNotFound('Schedule');
    const next = row.next_fire_at?.toISOString() ?? null;
    if (row.next_fire_at === null || row.next_fire_at.getTime() !== dueAt.getTime()) throw stale(next);
    const now = this.now();
    if (dueAt > now) throw problem('schedule_not_due', `The schedule is due at ${next}.`, { next_fire_at: next });
    const report = await this.fire(row, now, context);
    if (report.fires.length === 0 ? report.skipped === null : report.fires[0]!.outcome === 'lost') throw stale(report.next_fire_at);
    return report;
  }

  /** The schedule's due fire times as its misfire policy says, each fired in turn; stops at one another scheduler won. */
  async fire(row: ScheduleRow, now: Date, context?: AuditContext): Promise<FireReport> {
    const fence = row.next_fire_at!;
    const clock = this.#clocks(`${row.timezone} ${row.cron}`);
    const plan = planFires(clock, row.misfire_policy, fence, now, this.settings);
    const report: { fires: Fire[]; skipped: FireReport['skipped'] } = { fires: [], skipped: null };
    if (plan.skipTo !== undefined) {
      const skipped = await this.skip(row, fence, plan.skipTo, plan.skippedUntil!, context);
      if (!skipped) return { schedule_id: row.id, ...report, next_fire_at: null };
      report.skipped = { from: fence.toISOString(), to: plan.skippedUntil!.toISOString() };
    }
    let next: Date | null = plan.skipTo !== undefined ? plan.skipTo : fence;
    for (const due of plan.fires) {
      next = clock.next(due);
      const fire = await this.fireOne(row, due, next, context);
      report.fires.push(fire);
      if (fire.outcome === 'lost') break;
    }
    return { schedule_id: row.id, ...report, next_fire_at: next?.toISOString() ?? null };
  }

  /** One due time: the run with its gate row, entry and advance in one statement, or the refusal recorded. */
  private async fireOne(row: ScheduleRow, due: Date, next: Date | null, context: AuditContext | undefined): Promise<Fire> {
    const dueAt = due.toISOString();
    try {
      const run = await this.admission.admit(
        this.repo.direct,
        { ...scheduleRunRequest(row, { due_at: dueAt }, context), actor: SCHEDULER_ACTOR, createdBy: SCHEDULER_ACTOR.sub, action: ACTION },
        (facts) =>
          this.repo.fired(
            row.id,
            due,
            next,
            this.audit.entry(
              context,
              this.#event(row, 'schedule.fired', 'success', {
                due_at: dueAt,
                run_id: facts.id,
                flow_id: facts.flow_id,
                flow_version: facts.flow_version,
                next_fire_at: next?.toISOString() ?? null,
              }),
            ),
          ),
      );
      return { due_at: dueAt, outcome: 'fired', run_id: run.id, error: null };
    } catch (error) {
      if (error instanceof AdmissionGateClosed) return { due_at: dueAt, outcome: 'lost', run_id: null, error: null };
      if (!(error instanceof Problem) || error.status >= 500) throw error;
      const reason = { code: error.code, message: error.message };
      const recorded = await this.repo.transaction(async (trx) => {
        if (!(await this.repo.recordFailedFire(trx, row.id, due, next, { ...reason, due_at: dueAt }))) return false;
        const details = { due_at: dueAt, error: reason, next_fire_at: next?.toISOString() ?? null };
        await this.audit.record(context, this.#event(row, 'schedule.fire_failed', 'failure', details), trx);
        return true;
      });
      return recorded
        ? { due_at: dueAt, outcome: 'failed', run_id: null, error: reason }
        : { due_at: dueAt, outcome: 'lost', run_id: null, error: null };
    }
  }

  /** Missed fire times the policy does not run: `next_fire_at` moved past them, fenced, audited. */
  private async skip(row: ScheduleRow, fence: Date, to: Date | null, until: Date, context: AuditContext | undefined): Promise<boolean> {
    return this.repo.transaction(async (trx) => {
      if (!(await this.repo.advance(trx, row.id, fence, to))) return false;
      const details = {
        from: fence.toISOString(),
        until: until.toISOString(),
        misfire_policy: row.misfire_policy,
        next_fire_at: to?.toISOString() ?? null,
      };
      await this.audit.record(context, this.#event(row, 'schedule.fires_skipped', 'success', details), trx);
      return true;
    });
  }

  #event(row: ScheduleRow, eventType: string, outcome: 'success' | 'failure', details: Record<string, unknown>): AuditEvent {
    return {
      eventType,
      action: ACTION,
      resourceType: 'schedule',
      resourceId: row.id,
      outcome,
      orgId: row.org_id,
      actor: SCHEDULER_ACTOR,
      details,
    };
  }
}

function stale(next: string | null): Problem {
  return problem('schedule_fire_stale', "The due time is not the schedule's next fire time (already fired, or the schedule changed).", {
    next_fire_at: next,
  });
}
