import type { Approval } from '../../../shared/api/approvals.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import { fence, type Holder, isHeldBy, runNotFound, runNotHeld } from '../run-callbacks/fence.js';
import { RUN_CALLBACKS_ACTION } from '../runs/run-end-audit.js';
import { appendDaemonEvent } from '../runs/run-event-log.js';
import { gateOf, type ResolvedGate } from './approval-gate.js';
import { approvalNotFound, approvalNotPending } from './approval-problems.js';
import type { ApprovalReads } from './approval-reads.js';
import type { ApprovalsRepo } from './approvals-repo.js';

export interface ApprovalRequest {
  readonly step_id: string;
  readonly message?: string | null | undefined;
  readonly details?: Record<string, unknown> | undefined;
}

/**
 * The worker's side of approvals (docs/approvals.md): it asks for a step's gate, and while the approval
 * is pending it may change what approvers see. Fenced as the other callbacks.
 */
export class ApprovalRequestsService {
  constructor(
    private readonly repo: ApprovalsRepo,
    private readonly reads: ApprovalReads,
    private readonly audit: AuditWriter,
    private readonly defaults: ResolvedGate,
  ) {}

  /**
   * Opens the approval of `step_id` from the gate in the run's committed definition: the run moves
   * `running -> awaiting_approval` and its lease ends in the same transaction. A retry (the step has an
   * approval already) answers it unchanged, `created: false`.
   */
  async request(
    runId: string,
    holder: Holder,
    body: ApprovalRequest,
    context?: AuditContext,
  ): Promise<{ created: boolean; approval: Approval }> {
    if (!isUuid(runId)) throw runNotFound();
    const { created, id } = await this.repo.transaction(async (trx) => {
      const run = await this.repo.lockRun(trx, runId);
      if (!run) throw runNotFound();
      const existing = await this.repo.lockForStep(trx, runId, body.step_id);
      // Its own retry comes after the run stopped being held: the approval it made answers it.
      if (existing && existing.requested_by_worker === holder.workerId && existing.requested_attempt === holder.attempt) {
        return { created: false, id: existing.id };
      }
      fence(run, (r) => isHeldBy(r, holder), holder, ['running'], 'given an approval');
      if (existing) return { created: false, id: existing.id };
      const gate = gateOf(await this.repo.definition(trx, run), body.step_id, this.defaults);
      if (!gate) throw problems.validation([{ path: 'step_id', message: 'No step of the run has this id and an approval gate.' }]);
      const approval = await this.repo.insert(trx, {
        runId,
        orgId: run.org_id,
        stepId: body.step_id,
        message: body.message ?? null,
        details: body.details ?? {},
        gate,
        workerId: holder.workerId,
        attempt: holder.attempt,
      });
      await this.repo.awaitApproval(trx, runId);
      const reference = { approval_id: approval.id, step_id: body.step_id };
      await appendDaemonEvent(trx, runId, {
        type: 'run.status',
        data: {
          from: 'running',
          to: 'awaiting_approval',
          reason: 'approval_requested',
          ...reference,
          worker_id: holder.workerId,
          attempt: holder.attempt,
        },
      });
      await appendDaemonEvent(trx, runId, {
        type: 'approval.requested',
        stepId: body.step_id,
        data: {
          ...reference,
          required_approvals: gate.required_approvals,
          approver_role: gate.approver_role,
          expires_at: approval.expires_at,
        },
      });
      await this.audit.record(
        context,
        {
          eventType: 'approval.requested',
          action: RUN_CALLBACKS_ACTION,
          resourceType: 'approval',
          resourceId: approval.id,
          outcome: 'success',
          orgId: run.org_id,
          details: { run_id: runId, workflow_id: run.workflow_id, ...reference, worker_id: holder.workerId, attempt: holder.attempt, gate },
        },
        trx,
      );
      return { created: true, id: approval.id };
    });
    return { created, approval: await this.reads.byId(id) };
  }

  /** The worker that asked changes the message or details, while the approval is pending. */
  async describe(
    approvalId: string,
    holder: Holder,
    change: { message?: string | null | undefined; details?: Record<string, unknown> | undefined },
  ): Promise<Approval> {
    const owner = isUuid(approvalId) ? await this.repo.owner(approvalId) : undefined;
    if (!owner) throw approvalNotFound();
    await this.repo.transaction(async (trx) => {
      await this.repo.lockRun(trx, owner.run_id);
      const approval = await this.repo.lock(trx, approvalId);
      if (!approval) throw approvalNotFound();
      if (approval.requested_by_worker !== holder.workerId || approval.requested_attempt !== holder.attempt) throw runNotHeld(holder);
      if (approval.status !== 'pending') throw approvalNotPending(approval.status);
      await this.repo.describe(trx, approvalId, change);
    });
    return this.reads.byId(approvalId);
  }
}
