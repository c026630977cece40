import { isFinishedRun } from '../../../shared/run-statuses.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { recordRunEnd } from '../runs/run-end-audit.js';
import type { EndingLease, LeasesRepo, LeasesTx } from './leases-repo.js';

/** What ending some leases did. */
export interface LeaseOutcome {
  /** Back in the queue (or paused, and queued on resume): no step of the attempt had started. */
  readonly requeued: string[];
  /** Failed with `worker_lost`: a step had started, and network changes are not safe to run twice. */
  readonly failed: string[];
  /** Finished while held (a user's cancel): only the lease ended. */
  readonly cleared: string[];
}

/**
 * The one rule for a held run whose worker is gone, shared by the reaper (lease expired) and a heartbeat
 * that hands runs back (`released`): a finished run only loses its lease; one whose attempt started no
 * step is requeued; one that did is failed with `worker_lost` (AWX's choice: a step may have changed a
 * device, so running it again is not safe). Each change appends a `run.status` event; a failure is
 * audited `run.failed`. The caller holds the rows locked in `trx`.
 */
export class LeaseEnds {
  constructor(
    private readonly repo: LeasesRepo,
    private readonly audit: AuditWriter,
  ) {}

  async end(trx: LeasesTx, runs: readonly EndingLease[], context?: AuditContext): Promise<LeaseOutcome> {
    const outcome: LeaseOutcome = { requeued: [], failed: [], cleared: [] };
    for (const run of runs) {
      if (isFinishedRun(run.status)) {
        outcome.cleared.push(run.id);
      } else if (!run.step_started) {
        await this.requeue(trx, run);
        outcome.requeued.push(run.id);
      } else {
        await this.failLost(trx, run, context);
        outcome.failed.push(run.id);
      }
    }
    await this.repo.clearLeases(trx, outcome.cleared);
    return outcome;
  }

  /** Fails a run the worker just claimed whose definition is gone (its flow purged): nothing could run it. */
  async failDefinitionUnavailable(
    trx: LeasesTx,
    run: { id: string; org_id: string; workflow_id: string; attempt: number },
    workerId: string,
    context?: AuditContext,
  ): Promise<void> {
    const error = {
      code: 'definition_unavailable',
      message: 'The flow version this run was admitted with no longer exists (the flow was purged).',
      worker_id: workerId,
      attempt: run.attempt,
    };
    await this.repo.fail(trx, run.id, error);
    await this.repo.appendEvent(trx, run.id, {
      type: 'run.status',
      data: { from: 'running', to: 'failed', reason: 'definition_unavailable', worker_id: workerId, attempt: run.attempt },
    });
    await recordRunEnd(this.audit, trx, context, run, 'failed', error);
  }

  private async requeue(trx: LeasesTx, run: EndingLease): Promise<void> {
    await this.repo.requeue(trx, run);
    await this.repo.appendEvent(trx, run.id, {
      type: 'run.status',
      data: {
        from: run.status,
        to: run.status === 'paused' ? 'paused' : 'queued',
        reason: 'requeued',
        worker_id: run.worker_id,
        attempt: run.attempt,
      },
    });
  }

  private async failLost(trx: LeasesTx, run: EndingLease, context?: AuditContext): Promise<void> {
    const error = {
      code: 'worker_lost',
      message: `Worker ${run.worker_id ?? '(unknown)'} stopped holding the run after a step had started.`,
      worker_id: run.worker_id,
      attempt: run.attempt,
    };
    await this.repo.fail(trx, run.id, error);
    await this.repo.appendEvent(trx, run.id, {
      type: 'run.status',
      data: { from: run.status, to: 'failed', reason: 'worker_lost', worker_id: run.worker_id, attempt: run.attempt },
    });
    await recordRunEnd(this.audit, trx, context, run, 'failed', error);
  }
}
