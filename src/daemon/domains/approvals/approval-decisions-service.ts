import type { Approval, DecisionBody } from '../../../shared/api/approvals.js';
import { problem } from '../../../shared/api/problem.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { appendDaemonEvent } from '../runs/run-event-log.js';
import { type ApprovalExpiry, isDue } from './approval-expiry.js';
import type { ApprovalOutcomes } from './approval-outcomes.js';
import type { ApprovalReads } from './approval-reads.js';
import { approvalNotFound, approvalNotPending } from './approval-problems.js';
import type { ApprovalsRepo } from './approvals-repo.js';

/** Who decides: their subject (what `runs.created_by` holds for a starter), name, and role in the run's organization. */
export interface Approver {
  readonly sub: string;
  readonly username: string | null;
  /** The membership role in the approval's organization; null when not a member (a platform admin may not be). */
  readonly role: string | null;
}

const DECIDE = 'approval:decide';

/**
 * A person's decision on a pending approval (docs/approvals.md). Checks in order: 404, 409
 * `approval_not_pending`, 403 `separation_of_duties`, 403 `approver_role_required`, 409 `already_decided`.
 * The run and then the approval are locked, so two last approvals at once resolve it once. One rejection
 * rejects; `required_approvals` distinct approvals approve. A decision after the approval's deadline
 * finds it expired: the timeout decided, whether or not the maintenance pass has recorded it yet.
 */
export class ApprovalDecisionsService {
  constructor(
    private readonly repo: ApprovalsRepo,
    private readonly reads: ApprovalReads,
    private readonly outcomes: ApprovalOutcomes,
    private readonly expiry: ApprovalExpiry,
    private readonly audit: AuditWriter,
  ) {}

  async decide(
    orgId: string,
    approvalId: string,
    runId: string | undefined,
    approver: Approver,
    body: DecisionBody,
    context?: AuditContext,
  ): Promise<Approval> {
    // An approval of a soft-deleted run is hidden from the reads, so from the decisions too (404, not 409).
    const owner = isUuid(approvalId) ? await this.repo.visibleOwner(orgId, approvalId) : undefined;
    if (!owner || (runId !== undefined && owner.run_id !== runId)) throw approvalNotFound();
    const now = new Date();
    const expired = await this.repo.transaction(async (trx) => {
      const run = await this.repo.lockRun(trx, owner.run_id);
      const approval = await this.repo.lock(trx, approvalId);
      if (!run || !approval) throw approvalNotFound();
      if (approval.status !== 'pending') throw approvalNotPending(approval.status);
      // Expired now and refused once that commits (a refusal thrown here would roll the expiry back).
      if (isDue(approval, now)) {
        await this.expiry.expireLocked(trx, approval, now);
        return true;
      }
      if (!approval.allow_starter && run.created_by !== null && run.created_by === approver.sub) {
        throw problem('separation_of_duties', 'You started this run; its approval step needs another person to decide.');
      }
      if (approval.approver_role !== null && approver.role !== approval.approver_role) {
        throw problem('approver_role_required', `Deciding needs the ${approval.approver_role} role in the run's organization.`, {
          approver_role: approval.approver_role,
        });
      }
      if (await this.repo.hasDecided(trx, approvalId, approver.sub))
        throw problem('already_decided', 'You have already decided on this approval.');
      const comment = body.comment ?? null;
      await this.repo.addDecision(trx, { approvalId, userId: approver.sub, userName: approver.username, decision: body.decision, comment });
      const approvals = await this.repo.approvalsCount(trx, approvalId);
      const decided = { approval_id: approvalId, decision: body.decision, comment, user_id: approver.sub, user_name: approver.username };
      await appendDaemonEvent(trx, run.id, {
        type: 'approval.decided',
        stepId: approval.step_id,
        data: { ...decided, approvals_count: approvals, required_approvals: approval.required_approvals },
      });
      await this.audit.record(
        context,
        {
          eventType: 'approval.decided',
          action: DECIDE,
          resourceType: 'approval',
          resourceId: approvalId,
          outcome: 'success',
          orgId: run.org_id,
          details: { ...decided, run_id: run.id, step_id: approval.step_id, workflow_id: run.workflow_id },
        },
        trx,
      );
      if (body.decision === 'reject') await this.outcomes.reject(trx, approval, 'decision', context);
      else if (approvals >= approval.required_approvals) await this.outcomes.approve(trx, approval, 'decision');
      return false;
    });
    if (expired) throw approvalNotPending('expired');
    return this.reads.byId(approvalId);
  }
}
