import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { RunAdmission } from './run-admission.js';
import { isFinished, nextStatus, type RunCommand } from './run-state.js';
import { runView, type RunRow, type RunView } from './run-view.js';
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

function notFound(): Problem {
  return problems.resourceNotFound('Run');
}

function invalidState(run: RunRow, what: string): Problem {
  return problem('invalid_run_state', `A ${run.status} run cannot be ${what}.`, { status: run.status });
}

/**
 * Runs of the active organization: the manual trigger (through the one admission), the reads, and the
 * control routes. Runs belong to exactly one organization: the shared organization's runs are not
 * visible from another one. Every change is audited in its transaction.
 */
export class RunsService {
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
      const change: RunChange =
        command === 'cancel'
          ? { status, cancelled_at: 'now', cancelled_by: by, finished_at: 'now', paused_at: null, updated_by: by }
          : { status, paused_at: command === 'pause' ? 'now' : null, updated_by: by };
      const after = await this.repo.update(trx, id, change);
      await this.record(context, trx, org, EVENTS[command], CONTROL, after, { from: before.status, to: after.status });
      return after;
    });
  }

  async rename(org: OrgRef, id: string, name: string, context?: AuditContext): Promise<RunView> {
    return this.change(org, id, async (trx, before) => {
      if (before.name === name) return before;
      const after = await this.repo.update(trx, id, { name, updated_by: context?.subject ?? null });
      await this.record(context, trx, org, 'entity.updated', CONTROL, after, { changes: { name: { old: before.name, new: name } } });
      return after;
    });
  }

  /** Soft delete of a finished run (an active one is cancelled first: deleting must not hide a run that still acts on devices). */
  async remove(org: OrgRef, id: string, context?: AuditContext): Promise<void> {
    await this.change(org, id, async (trx, before) => {
      if (!isFinished(before.status)) throw invalidState(before, 'deleted before it finishes; cancel it first');
      const after = await this.repo.softDelete(trx, id, context?.subject ?? null);
      await this.record(context, trx, org, 'entity.deleted', CONTROL, after, { name: after.name, status: after.status });
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
        await this.record(context, trx, org, 'entity.restored', CONTROL, after, { name: after.name, status: after.status });
        return after;
      },
      { includeDeleted: true },
    );
  }

  /** Irreversible; works on live and soft-deleted runs alike, once they have finished. */
  async purge(org: OrgRef, id: string, context?: AuditContext): Promise<void> {
    await this.change(
      org,
      id,
      async (trx, before) => {
        if (!isFinished(before.status)) throw invalidState(before, 'purged before it finishes; cancel it first');
        await this.repo.purge(trx, id);
        await this.record(context, trx, org, 'entity.purged', 'run:purge', before, {
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
    org: OrgRef,
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
        orgId: org.id,
        details: { workflow_id: run.workflow_id, ...details },
      },
      trx,
    );
  }
}
