import type { AssignSharedWorkerAnswer, InternalRun, RunOutputs } from '../../../shared/api/run-callbacks.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { recordRunEnd, RUN_CALLBACKS_ACTION } from '../runs/run-end-audit.js';
import { appendDaemonEvent } from '../runs/run-event-log.js';
import { ACTIVE_STATUSES } from '../runs/run-state.js';
import type { RunsService } from '../runs/runs-service.js';
import { fence, type Holder, isHeldBy, runNotFound } from './fence.js';
import type { HeldRuns } from './held-runs.js';
import { internalRunView, type InternalRunRow } from './internal-run-view.js';
import type { RunCallbacksRepo, RunEnd } from './run-callbacks-repo.js';

/** The statuses a worker may end a run from: it holds it running, or a user paused it meanwhile. */
const ENDABLE = ['running', 'paused'] as const;

/**
 * The worker's callbacks on the run itself: read it, end it, its variables, its outputs, its shared
 * worker, and cancel it (or a child run it started).
 */
export class RunCallbacksService {
  constructor(
    private readonly repo: RunCallbacksRepo,
    private readonly held: HeldRuns,
    private readonly runs: RunsService,
    private readonly audit: AuditWriter,
  ) {}

  async get(runId: string): Promise<InternalRun> {
    return internalRunView(await this.read(runId));
  }

  async outputs(runId: string): Promise<RunOutputs> {
    const run = await this.read(runId);
    return { run_id: run.id, status: run.status, outputs: run.outputs_json, error: run.error_json };
  }

  /** The worker ends the run: `run.status` event and `run.finished` / `run.failed` entry in the same transaction. */
  finish(runId: string, holder: Holder, end: RunEnd, context?: AuditContext): Promise<InternalRun> {
    return this.held.hold(runId, holder, ENDABLE, end.status, async (trx, before) => {
      const after = await this.repo.finish(trx, runId, end);
      await appendDaemonEvent(trx, runId, {
        type: 'run.status',
        data: { from: before.status, to: after.status, worker_id: holder.workerId, attempt: holder.attempt, ...failure(end.error) },
      });
      await recordRunEnd(this.audit, trx, context, after, end.status, end.error);
      return internalRunView(after);
    });
  }

  /** Replaces the run's variables (while it is active). */
  setRunVars(runId: string, holder: Holder, vars: Record<string, unknown>): Promise<{ run_vars: Record<string, unknown> }> {
    return this.held.hold(runId, holder, ACTIVE_STATUSES, 'given variables', async (trx) => ({
      run_vars: await this.repo.setRunVars(trx, runId, vars),
    }));
  }

  /** First writer wins: `assigned` says whether the worker named is the run's shared worker now. */
  assignSharedWorker(runId: string, holder: Holder, workerId: string): Promise<AssignSharedWorkerAnswer> {
    return this.held.hold(runId, holder, ACTIVE_STATUSES, 'given a shared worker', async (trx, run) => {
      const holding = run.shared_worker_id ?? (await this.repo.assignSharedWorker(trx, runId, workerId));
      return { shared_worker_id: holding, assigned: holding === workerId };
    });
  }

  /**
   * Cancels an active run, by its holder or by the holder of its parent run (a `flow.run` step cancelling
   * its child), with every active run below it (RunsService.cancelLocked).
   */
  async cancel(runId: string, holder: Holder, reason: string | undefined, context?: AuditContext): Promise<InternalRun> {
    if (!isUuid(runId)) throw runNotFound();
    return this.repo.transaction(async (trx) => {
      const locked = await this.repo.lock(trx, runId);
      const parent = locked?.parent_run_id && !isHeldBy(locked, holder) ? await this.repo.holding(trx, locked.parent_run_id) : undefined;
      const heldHere = (run: InternalRunRow) => isHeldBy(run, holder) || (parent !== undefined && isHeldBy(parent, holder));
      const run = fence(locked, heldHere, holder, ACTIVE_STATUSES, 'cancelled');
      await this.runs.cancelLocked(trx, run, {
        by: null,
        action: RUN_CALLBACKS_ACTION,
        context,
        reason: 'worker_cancelled',
        ...(reason !== undefined ? { message: reason } : {}),
      });
      return internalRunView((await this.repo.lock(trx, runId))!);
    });
  }

  private async read(runId: string): Promise<InternalRunRow> {
    const run = isUuid(runId) ? await this.repo.get(runId) : undefined;
    if (!run) throw runNotFound();
    return run;
  }
}

/** A failed end's error in its `run.status` event: `reason` its code (as the daemon's own ends say theirs), and the error whole. */
function failure(error: Record<string, unknown> | undefined): { reason?: unknown; error?: Record<string, unknown> } {
  if (error === undefined) return {};
  return typeof error.code === 'string' ? { reason: error.code, error } : { error };
}
