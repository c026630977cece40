import type { Approval, ApprovalStatus } from '../../../shared/api/approvals.js';
import type { ApprovalTimeoutAction } from '../../../shared/flows/definition.js';
import { iso } from '../runs/run-view.js';

/** An `approvals` row with what the wire needs of its run (read through a join). */
export interface ApprovalRow {
  readonly id: string;
  readonly org_id: string;
  readonly run_id: string;
  readonly run_name: string;
  readonly flow_id: string | null;
  readonly flow_name: string;
  readonly step_id: string;
  readonly status: ApprovalStatus;
  readonly message: string | null;
  readonly details_json: Record<string, unknown>;
  readonly required_approvals: number;
  readonly approver_role: string | null;
  readonly allow_starter: boolean;
  readonly timeout_action: ApprovalTimeoutAction;
  readonly expires_at: Date | string | null;
  readonly timeout_outcome: 'approved' | 'rejected' | null;
  readonly run_started_by: string | null;
  readonly requested_at: Date | string;
  readonly resolved_at: Date | string | null;
}

export interface DecisionRow {
  readonly approval_id: string;
  readonly user_id: string;
  readonly user_name: string | null;
  readonly decision: 'approve' | 'reject';
  readonly comment: string | null;
  readonly decided_at: Date | string;
}

/** The columns of an `ApprovalRow`, from `approvals a JOIN runs r`. */
export const APPROVAL_COLUMNS = [
  'a.id',
  'a.org_id',
  'a.run_id',
  'r.name as run_name',
  'r.flow_id',
  'r.flow_name',
  'a.step_id',
  'a.status',
  'a.message',
  'a.details_json',
  'a.required_approvals',
  'a.approver_role',
  'a.allow_starter',
  'a.timeout_action',
  'a.expires_at',
  'a.timeout_outcome',
  'r.created_by as run_started_by',
  'a.requested_at',
  'a.resolved_at',
] as const;

/** An approval on the wire, with its decisions (oldest first). */
export function approvalView(row: ApprovalRow, decisions: readonly DecisionRow[]): Approval {
  return {
    id: row.id,
    org_id: row.org_id,
    run_id: row.run_id,
    run_name: row.run_name,
    flow_id: row.flow_id,
    flow_name: row.flow_name,
    step_id: row.step_id,
    status: row.status,
    message: row.message,
    details: row.details_json,
    required_approvals: row.required_approvals,
    approvals_count: decisions.filter((d) => d.decision === 'approve').length,
    approver_role: row.approver_role,
    allow_starter: row.allow_starter,
    timeout_action: row.timeout_action,
    expires_at: iso(row.expires_at),
    timeout_outcome: row.timeout_outcome,
    run_started_by: row.run_started_by,
    requested_at: iso(row.requested_at),
    resolved_at: iso(row.resolved_at),
    decisions: decisions.map((d) => ({
      user_id: d.user_id,
      user_name: d.user_name,
      decision: d.decision,
      comment: d.comment,
      decided_at: iso(d.decided_at),
    })),
  };
}
