import type { AuditWriter } from '../../audit/audit-writer.js';
import type { ApprovalOutcomes } from './approval-outcomes.js';
import type { ApprovalsRepo, ApprovalsTx, LockedApproval } from './approvals-repo.js';

/** What one pass of the expiry did (the maintenance tick reports it). */
export interface ExpirySummary {
  readonly expired: number;
  readonly approved: number;
  readonly rejected: number;
}

/** Approvals expired per pass at most; the next pass takes the rest. */
const BATCH = 500;

/**
 * Expires pending approvals whose `expires_at` is at or before `now` (the maintenance tick's job, its
 * clock injected): each becomes `expired` with `timeout_outcome` its gate's action, and its run is queued
 * (approve) or failed with `approval_expired` (reject). One transaction per approval, the run locked
 * first as everywhere; an approval decided meanwhile is left as it is.
 */
export class ApprovalExpiry {
  constructor(
    private readonly repo: ApprovalsRepo,
    private readonly outcomes: ApprovalOutcomes,
    private readonly audit: AuditWriter,
  ) {}

  async expireDue(now: Date): Promise<ExpirySummary> {
    let approved = 0;
    let rejected = 0;
    for (const id of await this.repo.due(now, BATCH)) {
      const owner = await this.repo.owner(id);
      if (!owner) continue;
      const outcome = await this.repo.transaction(async (trx) => {
        await this.repo.lockRun(trx, owner.run_id);
        const approval = await this.repo.lock(trx, id);
        if (approval?.status !== 'pending' || !isDue(approval, now)) return undefined;
        await this.expireLocked(trx, approval, now);
        return approval.timeout_action;
      });
      if (outcome === 'approve') approved += 1;
      if (outcome === 'reject') rejected += 1;
    }
    return { expired: approved + rejected, approved, rejected };
  }

  /**
   * Expires a pending approval that is due, in the caller's transaction (its run and it locked): the
   * tick's pass, and a decision that comes after the deadline, which the timeout has decided already.
   */
  async expireLocked(trx: ApprovalsTx, approval: LockedApproval, now: Date): Promise<void> {
    await this.audit.record(
      undefined,
      {
        eventType: 'approval.expired',
        action: 'internal:scheduler',
        resourceType: 'approval',
        resourceId: approval.id,
        outcome: 'success',
        orgId: approval.org_id,
        details: { run_id: approval.run_id, step_id: approval.step_id, timeout_action: approval.timeout_action },
      },
      trx,
    );
    if (approval.timeout_action === 'approve') await this.outcomes.approve(trx, approval, 'timeout', now);
    else await this.outcomes.reject(trx, approval, 'timeout', undefined, now);
  }
}

/** Whether the approval's time is up at `now` (never for one without a timeout). */
export function isDue(approval: Pick<LockedApproval, 'expires_at'>, now: Date): boolean {
  return approval.expires_at !== null && new Date(approval.expires_at) <= now;
}
