import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { recordRunEnd } from '../runs/run-end-audit.js';
import { appendDaemonEvent } from '../runs/run-event-log.js';
import type { ApprovalsRepo, ApprovalsTx, LockedApproval } from './approvals-repo.js';

/** Why the run moves on: people decided, or the timeout did. */
export type OutcomeCause = 'decision' | 'timeout';

/**
 * What an approval's end does to the run it gates, in the caller's transaction (the run and the approval
 * locked, the run still `awaiting_approval`): approved, the run is queued for any worker's next claim;
 * rejected, it fails at once with `approval_rejected` or `approval_expired`.
 */
export class ApprovalOutcomes {
  constructor(
    private readonly repo: ApprovalsRepo,
    private readonly audit: AuditWriter,
  ) {}

  async approve(trx: ApprovalsTx, approval: LockedApproval, cause: OutcomeCause, at?: Date): Promise<void> {
    await this.repo.end(
      trx,
      approval.id,
      cause === 'decision' ? { status: 'approved' } : { status: 'expired', timeoutOutcome: 'approved', ...(at ? { at } : {}) },
    );
    await this.repo.requeue(trx, approval.run_id);
    await appendDaemonEvent(trx, approval.run_id, {
      type: 'run.status',
      data: {
        from: 'awaiting_approval',
        to: 'queued',
        reason: cause === 'decision' ? 'approved' : 'approval_timeout',
        approval_id: approval.id,
        step_id: approval.step_id,
      },
    });
  }

  async reject(trx: ApprovalsTx, approval: LockedApproval, cause: OutcomeCause, context?: AuditContext, at?: Date): Promise<void> {
    await this.repo.end(
      trx,
      approval.id,
      cause === 'decision' ? { status: 'rejected' } : { status: 'expired', timeoutOutcome: 'rejected', ...(at ? { at } : {}) },
    );
    const code = cause === 'decision' ? 'approval_rejected' : 'approval_expired';
    const error = {
      code,
      message: cause === 'decision' ? 'An approver rejected the step.' : 'The approval timed out.',
      step_id: approval.step_id,
      approval_id: approval.id,
    };
    const run = await this.repo.fail(trx, approval.run_id, error);
    await appendDaemonEvent(trx, approval.run_id, {
      type: 'run.status',
      data: { from: 'awaiting_approval', to: 'failed', reason: code, approval_id: approval.id, step_id: approval.step_id },
    });
    await recordRunEnd(this.audit, trx, context, run, 'failed', error);
  }
}
