import type { CreateScheduleBody, Schedule, ScheduleList, UpdateScheduleBody, ValidateCronAnswer } from '../../../shared/api/schedules.js';
import type { Run } from '../../../shared/api/runs.js';
import type { Problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { refuseIfChanged } from '../../http/entity-tag.js';
import type { Knex } from 'knex';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { RunAdmission } from '../runs/run-admission.js';
import { CronClock, zonedIso } from './cron.js';
import { lockedScheduleVersion, scheduleAuditView, scheduleView } from './schedule-view.js';
import { scheduleRunRequest } from './schedule-run.js';
import type { ScheduleFilter, ScheduleRow, ScheduleWithFlow, SchedulesRepo, SchedulesTx } from './schedules-repo.js';

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

/** The clock schedules read "now" from: the real one, or a test's. */
export type Clock = () => Date;

const RESOURCE = 'schedule';
const MANAGE = 'schedule:manage';
const NEXT_RUNS_SHOWN = 5;

function notFound(): Problem {
  return problems.resourceNotFound('Schedule');
}

/** The fields that decide what a fire would run: changing one has admission check the schedule again. */
const RUN_FIELDS = ['flow_id', 'flow_version', 'params', 'targets'] as const;
/** The fields that decide when it fires: changing one computes the next fire time again. */
const WHEN_FIELDS = ['cron', 'timezone', 'enabled'] as const;

/** The columns an update writes for the fields it was given (the cron expression as the clock normalized it). */
function changedColumns(input: UpdateScheduleBody, clock: CronClock): Record<string, unknown> {
  const change: Record<string, unknown> = {};
  if (input.name !== undefined) change.name = input.name;
  if (input.description !== undefined) change.description = input.description;
  if (input.flow_id !== undefined) change.flow_id = input.flow_id;
  if (input.flow_version !== undefined) change.flow_version = input.flow_version;
  if (input.params !== undefined) change.params_json = JSON.stringify(input.params);
  if (input.targets !== undefined) change.targets_json = JSON.stringify(input.targets);
  if (input.cron !== undefined) change.cron = clock.expression;
  if (input.timezone !== undefined) change.timezone = clock.timezone;
  if (input.enabled !== undefined) change.enabled = input.enabled;
  if (input.misfire_policy !== undefined) change.misfire_policy = input.misfire_policy;
  return change;
}

/**
 * Schedule management (`schedule:view|manage|trigger|purge`): the cron expression and zone checked by
 * croner, the flow, params and targets by run admission itself (`RunAdmission.vet`, nothing written), so a
 * schedule is stored only when its fires would be admitted. Every change is audited in its transaction.
 */
export class SchedulesService {
  constructor(
    private readonly repo: SchedulesRepo,
    private readonly admission: RunAdmission,
    private readonly audit: AuditWriter,
    private readonly now: Clock,
  ) {}

  validateCron(cron: string, timezone = 'UTC'): ValidateCronAnswer {
    const clock = CronClock.parse(cron, timezone);
    return {
      valid: true,
      timezone: clock.timezone,
      next_runs: clock.nextRuns(NEXT_RUNS_SHOWN, this.now()).map((at) => zonedIso(at, clock.timezone)),
      description: clock.describe(),
    };
  }

  async list(org: OrgRef, filter: ScheduleFilter): Promise<ScheduleList> {
    const { rows, total } = await this.repo.list(org.id, filter);
    return { items: rows.map(scheduleView), total, limit: filter.limit, offset: filter.offset };
  }

  async get(org: OrgRef, id: string): Promise<Schedule> {
    return scheduleView(await this.live(org, id));
  }

  async create(org: OrgRef, input: CreateScheduleBody, context: AuditContext | undefined): Promise<Schedule> {
    const clock = CronClock.parse(input.cron, input.timezone ?? 'UTC');
    const enabled = input.enabled ?? true;
    const params = input.params ?? {};
    const targets = input.targets ?? {};
    await this.vet(this.repo.direct, org, input.flow_id, input.flow_version ?? null, params, targets);
    const by = context?.subject ?? null;
    return this.repo.transaction(async (trx) => {
      const id = await this.repo.insert(trx, {
        org_id: org.id,
        flow_id: input.flow_id,
        flow_version: input.flow_version ?? null,
        name: input.name,
        description: input.description ?? null,
        cron: clock.expression,
        timezone: clock.timezone,
        params_json: JSON.stringify(params),
        targets_json: JSON.stringify(targets),
        enabled,
        misfire_policy: input.misfire_policy ?? 'last',
        next_fire_at: enabled ? clock.next(this.now()) : null,
        created_by: by,
        updated_by: by,
      });
      const row = (await this.repo.find(org.id, id, trx))!;
      await this.record(trx, context, 'entity.created', MANAGE, row, { schedule: scheduleAuditView(row) });
      return scheduleView(row);
    });
  }

  /**
   * Everything a change does is decided on the row as locked, not as read before: a change committed in
   * between (a resume, a retarget) would otherwise be undone by fields computed from the older row, e.g. a
   * resumed schedule left with no next fire time. Admission vets in the same transaction. `ifMatch`: the
   * request's `If-Match`, held against the locked row's version (`scheduleVersion`) before anything changes.
   */
  async update(org: OrgRef, id: string, given: UpdateScheduleBody, context: AuditContext | undefined, ifMatch?: string): Promise<Schedule> {
    if (!isUuid(id)) throw notFound();
    return this.repo.transaction(async (trx) => {
      const current = await this.repo.lock(trx, org.id, id);
      if (!current || current.deleted_at) throw notFound();
      refuseIfChanged(ifMatch, () => lockedScheduleVersion(current), 'schedule');
      // Retargeting drops a pin the request does not restate: version N of one flow says nothing about another.
      const retargets = given.flow_id !== undefined && given.flow_id !== current.flow_id && given.flow_version === undefined;
      const input: UpdateScheduleBody = retargets ? { ...given, flow_version: null } : given;
      const after = {
        flow_id: input.flow_id ?? current.flow_id,
        flow_version: input.flow_version !== undefined ? input.flow_version : current.flow_version,
        params: input.params ?? current.params_json,
        targets: input.targets ?? current.targets_json,
        cron: input.cron ?? current.cron,
        timezone: input.timezone ?? current.timezone,
        enabled: input.enabled ?? current.enabled,
      };
      const clock = CronClock.parse(after.cron, after.timezone);
      if (RUN_FIELDS.some((field) => input[field] !== undefined)) {
        await this.vet(trx, org, after.flow_id ?? '', after.flow_version, after.params, after.targets);
      }
      const change = changedColumns(input, clock);
      // Paused or resumed, or a new expression: the next fire time from now; an unchanged one keeps its own
      // (compared as stored: a zone restated in another case, an expression with other blanks, is no change).
      const when = { cron: clock.expression, timezone: clock.timezone, enabled: after.enabled };
      if (WHEN_FIELDS.some((field) => input[field] !== undefined && when[field] !== current[field])) {
        change.next_fire_at = after.enabled ? clock.next(this.now()) : null;
      }
      await this.repo.update(trx, id, { ...change, updated_by: context?.subject ?? null });
      const row = (await this.repo.find(org.id, id, trx))!;
      await this.record(trx, context, 'entity.updated', MANAGE, row, {
        changed: Object.keys(given).sort(),
        schedule: scheduleAuditView(row),
      });
      return scheduleView(row);
    });
  }

  async remove(org: OrgRef, id: string, context: AuditContext | undefined): Promise<void> {
    await this.change(org, id, { deleted: false }, async (trx, row) => {
      await this.repo.softDelete(trx, id, context?.subject ?? null);
      await this.record(trx, context, 'entity.deleted', MANAGE, row, { name: row.name });
    });
  }

  async restore(org: OrgRef, id: string, context: AuditContext | undefined): Promise<Schedule> {
    await this.change(org, id, { deleted: true }, async (trx, row) => {
      const next = row.enabled ? CronClock.parse(row.cron, row.timezone).next(this.now()) : null;
      await this.repo.restore(trx, id, context?.subject ?? null, next);
      await this.record(trx, context, 'entity.restored', MANAGE, row, { schedule: scheduleAuditView(row) });
    });
    return this.get(org, id);
  }

  /** Permanent removal, live or soft-deleted; its fire rows go with it, its runs stay. */
  async purge(org: OrgRef, id: string, context: AuditContext | undefined): Promise<void> {
    await this.change(org, id, { deleted: undefined }, async (trx, row) => {
      await this.repo.purge(trx, id);
      await this.record(trx, context, 'entity.purged', 'schedule:purge', row, { schedule: scheduleAuditView(row) });
    });
  }

  /** `POST /schedules/{id}/run`: the schedule's run now, through the one admission; the next fire time is left alone. */
  async runNow(org: OrgRef, id: string, context: AuditContext | undefined): Promise<Run> {
    const row = await this.live(org, id);
    const admitted = await this.admission.admit(this.repo.direct, {
      ...scheduleRunRequest(row, { run_now: true }, context),
      createdBy: context?.subject ?? null,
    });
    return admitted.run;
  }

  /** The organization's live schedule; 404 for a foreign, malformed, unknown or deleted id. */
  private async live(org: OrgRef, id: string): Promise<ScheduleWithFlow> {
    const row = isUuid(id) ? await this.repo.find(org.id, id) : undefined;
    if (!row || row.deleted_at) throw notFound();
    return row;
  }

  /** Admission's refusals for what the schedule's fires would run, nothing written. */
  private async vet(
    db: Knex | Knex.Transaction,
    org: OrgRef,
    flowId: string,
    version: number | null,
    params: Readonly<Record<string, unknown>>,
    targets: Readonly<Record<string, readonly string[]>>,
  ): Promise<void> {
    await this.admission.vet(db, {
      orgId: org.id,
      flowId,
      version,
      params,
      targets,
      trigger: { source: 'schedule' },
    });
  }

  /** Locks the organization's schedule and applies `work`; `deleted` says which state it must be in (undefined: either). */
  private async change(
    org: OrgRef,
    id: string,
    want: { deleted: boolean | undefined },
    work: (trx: SchedulesTx, row: ScheduleRow) => Promise<void>,
  ): Promise<void> {
    if (!isUuid(id)) throw notFound();
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, org.id, id);
      if (!row || (want.deleted !== undefined && (row.deleted_at !== null) !== want.deleted)) throw notFound();
      await work(trx, row);
    });
  }

  private async record(
    trx: SchedulesTx,
    context: AuditContext | undefined,
    eventType: string,
    action: string,
    row: ScheduleRow,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(
      context,
      { eventType, action, resourceType: RESOURCE, resourceId: row.id, outcome: 'success', orgId: row.org_id, details },
      trx,
    );
  }
}
