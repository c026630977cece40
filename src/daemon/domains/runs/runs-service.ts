import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { RunAdmission } from './run-admission.js';
import { appendDaemonEvent } from './run-event-log.js';
import { isFinishedRun } from '../../../shared/run-statuses.js';
import { nextStatus, type RunCommand } from './run-state.js';
import { runView, type RunRow, type RunStatus, type RunView } from './run-view.js';
import type { FilterOptions, RunChange, RunFilter, RunsRepo, RunsTx } from './runs-repo.js';

export interface OrgRef {
  readonly id: string;
  readonly slug: string;
}

export interface ManualRunInput {
  readonly flow_id: string;
  readonly version?: number | null | undefined;
  readonly params?: Record<string, unknown> | undefined;
  readonly targets?: Record<string, string[]> | undefined;
  readonly name?: string | undefined;
}

const CONTROL = 'run:control';

/** Past tense of each command, for its audit event (`run.cancelled`, …). */
const EVENTS: Record<RunCommand, string> = { cancel: 'run.cancelled', pause: 'run.paused', resume: 'run.resumed' };

/** A run about to be cancelled, as its caller locked it. */
export interface CancelTarget {
  readonly id: string;
  readonly status: RunStatus;
}

/** Who cancels, under which catalogue action, and why (a worker's cancel names a reason). */
export interface CancelHow {
  readonly by: string | null;
  readonly action: string;
  readonly context: AuditContext | undefined;
  /** The event's and entry's `reason` code (none for a user's cancel). */
  readonly reason?: string;
  readonly message?: string;
}

function cancelChange(by: string | null): RunChange {
  return { status: 'cancelled', cancelled_at: 'now', cancelled_by: by, finished_at: 'now', paused_at: null, updated_by: by };
}

function notFound(): Problem {
  return problems.resourceNotFound('Run');
}

function invalidState(run: RunRow, what: string): Problem {
  return problem('invalid_run_state', `A ${run.status} run cannot be ${what}.`, { current_status: run.status });
}

/** Reads, in the purge's transaction, what the run keeps outside the database; answers its removal, run after the commit. */
export type PurgeListener = (trx: RunsTx, runId: string) => Promise<() => Promise<void>>;

/**
 * Runs of the active organization: the manual trigger (through the one admission), the reads, and the
 * control routes. Runs belong to exactly one organization: the shared organization's runs are not
 * visible from another one. Every change is audited in its transaction.
 */
export class RunsService {
  readonly #purgeListeners: PurgeListener[] = [];

  constructor(
    private readonly repo: RunsRepo,
    private readonly admission: RunAdmission,
    private readonly audit: AuditWriter,
  ) {}

  async trigger(org: OrgRef, input: ManualRunInput, options: { force: boolean }, context?: AuditContext): Promise<RunView> {
    // No transaction: admission's one write is a single statement, and BEGIN + COMMIT would double its round trips.
    const admitted = await this.repo.direct((db) =>
      this.admission.admit(db, {
        orgId: org.id,
        flowId: input.flow_id,
        version: input.version ?? null,
        params: input.params ?? {},
        targets: input.targets ?? {},
        trigger: { source: 'manual' },
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(context ? { audit: context } : {}),
        createdBy: context?.subject ?? null,
        forceManual: options.force,
      }),
    );
    return admitted.run;
  }

  async list(org: OrgRef, filter: RunFilter): Promise<{ items: RunView[]; total: number; limit: number; offset: number }> {
    const { rows, total } = await this.repo.list(org.id, filter);
    return { items: rows.map(runView), total, limit: filter.limit, offset: filter.offset };
  }

  async get(org: OrgRef, id: string): Promise<RunView> {
    const row = isUuid(id) ? await this.repo.get(org.id, id) : undefined;
    if (!row) throw notFound();
    return runView(row);
  }

  filterOptions(org: OrgRef): Promise<FilterOptions> {
    return this.repo.filterOptions(org.id);
  }

  async command(org: OrgRef, id: string, command: RunCommand, context?: AuditContext): Promise<RunView> {
    return this.change(org, id, async (trx, before) => {
      const status = nextStatus(before, command);
      if (!status) throw invalidState(before, { cancel: 'cancelled', pause: 'paused', resume: 'resumed' }[command]);
      const by = context?.subject ?? null;
      if (command === 'cancel') return this.cancelLocked(trx, before, { by, action: CONTROL, context });
      const after = await this.repo.update(trx, id, { status, paused_at: command === 'pause' ? 'now' : null, updated_by: by });
      await appendDaemonEvent(trx, id, { type: 'run.status', data: { from: before.status, to: after.status } });
      await this.record(context, trx, EVENTS[command], CONTROL, after, { from: before.status, to: after.status });
      return after;
    });
  }

  /**
   * Cancels an active run the caller has locked in `trx` (the control route, the worker's internal
   * cancel), and with it every active run below it (child runs of its `flow.run` steps, theirs, …): a
   * cancelled parent must not leave children acting on devices. A run awaiting an approval has its
   * pending approval cancelled too. Each run cancelled gets its `run.status`
   * event and its `run.cancelled` entry, in `trx`. A held run keeps its lease, so its worker can still
   * post its last events and end its step runs.
   */
  async cancelLocked(trx: RunsTx, before: CancelTarget, how: CancelHow): Promise<RunRow> {
    const after = await this.repo.update(trx, before.id, cancelChange(how.by));
    const data = { from: before.status, to: after.status, ...(how.reason ? { reason: how.reason } : {}) };
    await appendDaemonEvent(trx, before.id, { type: 'run.status', data });
    await this.record(how.context, trx, 'run.cancelled', how.action, after, how.message ? { ...data, message: how.message } : data);
    const children = await this.repo.cancelDescendants(trx, before.id, how.by);
    for (const child of children) {
      const childData = { from: child.previous_status, to: child.status, reason: 'parent_cancelled' };
      await appendDaemonEvent(trx, child.id, { type: 'run.status', data: childData });
      await this.record(how.context, trx, 'run.cancelled', how.action, child, { ...childData, parent_run_id: child.parent_run_id });
    }
    const waiting = [before, ...children.map((child) => ({ id: child.id, status: child.previous_status }))].filter(
      (run) => run.status === 'awaiting_approval',
    );
    if (waiting.length > 0)
      await this.repo.cancelPendingApprovals(
        trx,
        waiting.map((run) => run.id),
      );
    return after;
  }

  async rename(org: OrgRef, id: string, name: string, context?: AuditContext): Promise<RunView> {
    return this.change(org, id, async (trx, before) => {
      if (before.name === name) return before;
      const after = await this.repo.update(trx, id, { name, updated_by: context?.subject ?? null });
      await this.record(context, trx, 'entity.updated', CONTROL, after, { changes: { name: { old: before.name, new: name } } });
      return after;
    });
  }

  /** Soft delete of a finished run (an active one is cancelled first: deleting must not hide a run that still acts on devices). */
  async remove(org: OrgRef, id: string, context?: AuditContext): Promise<void> {
    await this.change(org, id, async (trx, before) => {
      if (!isFinishedRun(before.status)) throw invalidState(before, 'deleted before it finishes; cancel it first');
      const after = await this.repo.softDelete(trx, id, context?.subject ?? null);
      await this.record(context, trx, 'entity.deleted', CONTROL, after, { name: after.name, status: after.status });
      return after;
    });
  }

  async restore(org: OrgRef, id: string, context?: AuditContext): Promise<RunView> {
    return this.change(
      org,
      id,
      async (trx, before) => {
        if (before.deleted_at === null) throw problems.conflict('The run is not deleted.');
        const after = await this.repo.restore(trx, id, context?.subject ?? null);
        await this.record(context, trx, 'entity.restored', CONTROL, after, { name: after.name, status: after.status });
        return after;
      },
      { includeDeleted: true },
    );
  }

  /**
   * Another domain's clean-up of what a purged run kept outside the database (artifact files, objects in a
   * file repository): called in the purge's transaction, while its rows can still be read, and answering
   * the clean-up to run once the purge has committed. Rows go by their foreign keys' cascade.
   */
  onPurged(listener: PurgeListener): void {
    this.#purgeListeners.push(listener);
  }

  /** Irreversible; works on live and soft-deleted runs alike, once they have finished. */
  async purge(org: OrgRef, id: string, context?: AuditContext): Promise<void> {
    const afterCommit: (() => Promise<void>)[] = [];
    await this.change(
      org,
      id,
      async (trx, before) => {
        if (!isFinishedRun(before.status)) throw invalidState(before, 'purged before it finishes; cancel it first');
        for (const listener of this.#purgeListeners) afterCommit.push(await listener(trx, id));
        await this.repo.purge(trx, id);
        await this.record(context, trx, 'entity.purged', 'run:purge', before, {
          name: before.name,
          flow_id: before.flow_id,
          flow_name: before.flow_name,
          flow_version: before.flow_version,
          status: before.status,
          was_deleted: before.deleted_at !== null,
        });
        return before;
      },
      { includeDeleted: true },
    );
    for (const cleanUp of afterCommit) await cleanUp();
  }

  /** Locks the organization's run and applies `work`; a foreign, malformed or (unless asked) soft-deleted id is 404. */
  private async change(
    org: OrgRef,
    id: string,
    work: (trx: RunsTx, before: RunRow) => Promise<RunRow>,
    options: { includeDeleted?: boolean } = {},
  ): Promise<RunView> {
    if (!isUuid(id)) throw notFound();
    const row = await this.repo.transaction(async (trx) => {
      const before = await this.repo.lock(trx, org.id, id);
      if (!before || (before.deleted_at !== null && !options.includeDeleted)) throw notFound();
      return work(trx, before);
    });
    return runView(row);
  }

  private async record(
    context: AuditContext | undefined,
    trx: RunsTx,
    eventType: string,
    action: string,
    run: RunRow,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(
      context,
      {
        eventType,
        action,
        resourceType: 'run',
        resourceId: run.id,
        outcome: 'success',
        orgId: run.org_id,
        details: { workflow_id: run.workflow_id, ...details },
      },
      trx,
    );
  }
}
