import { z } from 'zod';
import { APPROVAL_GATE_LIMITS } from '../flows/definition-schema.js';
import { APPROVAL_TIMEOUT_ACTIONS } from '../flows/definition.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of approvals: the approver's routes (`/approvals…`, `/runs/{run_id}/approvals…`) and the
 * worker's (`POST /internal/runs/{run_id}/approvals`, `PATCH /internal/approvals/{approval_id}`). A step
 * with an `approval` gate in the committed definition asks for one before it runs; docs/approvals.md.
 */

const MAX_PAGE = 500;
const count = (max: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/)
    .transform(Number)
    .pipe(z.number().int().min(0).max(max));
const page = { limit: count(MAX_PAGE).pipe(z.number().min(1)).default(50), offset: count(10_000_000).default(0) };
const jsonObject = z.record(z.string(), z.unknown());
const stepId = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);

/**
 * - `pending`: waiting for decisions; the run is `awaiting_approval`;
 * - `approved` / `rejected`: decided by people (enough approvals, or one rejection);
 * - `expired`: its timeout passed; `timeout_outcome` says what that decided for the run;
 * - `cancelled`: the run was cancelled while it waited.
 */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const DECISIONS = ['approve', 'reject'] as const;

export const approvalPath = z.object({ approval_id: pathId });
export const runApprovalPath = z.object({ run_id: pathId, approval_id: pathId });

export const approvalDecision = z.object({
  user_id: z.string(),
  /** The approver's display name or username when known. */
  user_name: z.string().nullable(),
  decision: z.enum(DECISIONS),
  comment: z.string().nullable(),
  decided_at: z.string(),
});

/** An approval on the wire: every route answers this shape (lists in pages of it). */
export const approval = z.object({
  id: z.string(),
  org_id: z.string(),
  run_id: z.string(),
  run_name: z.string(),
  flow_id: z.string().nullable(),
  flow_name: z.string(),
  step_id: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  /** The gate's message as the worker rendered it. */
  message: z.string().nullable(),
  /** What the worker attached for the approvers (a planned change, a diff summary). */
  details: jsonObject,
  required_approvals: z.number().int(),
  /** Approvals recorded so far (distinct people). */
  approvals_count: z.number().int(),
  approver_role: z.string().nullable(),
  allow_starter: z.boolean(),
  timeout_action: z.enum(APPROVAL_TIMEOUT_ACTIONS),
  /** Null: never expires. */
  expires_at: z.string().nullable(),
  /** For `expired`: what the timeout decided for the run. */
  timeout_outcome: z.enum(['approved', 'rejected']).nullable(),
  /** Who started the run (a user id), whom `allow_starter: false` keeps from approving. */
  run_started_by: z.string().nullable(),
  requested_at: z.string(),
  resolved_at: z.string().nullable(),
  decisions: z.array(approvalDecision),
});
export type Approval = z.infer<typeof approval>;

export const approvalList = z.object({
  items: z.array(approval),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const approvalListQuery = z
  .object({
    status: z.enum(APPROVAL_STATUSES).optional(),
    run_id: z.guid().optional(),
    flow_id: z.guid().optional(),
    ...page,
  })
  .strict();
export const pendingApprovalsQuery = z.object({ ...page }).strict();
export const runApprovalsQuery = z.object({ ...page }).strict();

/** `POST …/decision`: approve or reject, with an optional comment (audited). */
export const decisionBody = z
  .object({
    decision: z.enum(DECISIONS),
    comment: z.string().trim().max(2000).nullable().optional(),
  })
  .strict();
export type DecisionBody = z.infer<typeof decisionBody>;

/** The defaults an `approval` gate's absent fields take, and their bounds (the flow editor's form). */
export const approvalNodeDefaults = z.object({
  required_approvals: z.number().int(),
  approver_role: z.string().nullable(),
  allow_starter: z.boolean(),
  timeout_seconds: z.number().int(),
  timeout_action: z.enum(APPROVAL_TIMEOUT_ACTIONS),
  limits: z.object({ max_required_approvals: z.number().int(), max_timeout_seconds: z.number().int() }),
});
export const APPROVAL_LIMITS = APPROVAL_GATE_LIMITS;

/**
 * `POST /internal/runs/{run_id}/approvals` (fenced, from `running`): the holder asks for the gate of
 * `step_id` (read from the run's committed definition, never from this body). The run moves to
 * `awaiting_approval` and its lease ends in the same transaction: the worker drops the run. 201 with the
 * approval; 200 with the existing one when the step already has one (a retry).
 */
export const createApprovalBody = z
  .object({
    step_id: stepId,
    message: z.string().max(4000).nullable().optional(),
    details: jsonObject.optional(),
  })
  .strict();

/** `PATCH /internal/approvals/{approval_id}`: the worker that asked updates what approvers see, while pending. */
export const patchApprovalBody = z
  .object({
    message: z.string().max(4000).nullable().optional(),
    details: jsonObject.optional(),
  })
  .strict();
