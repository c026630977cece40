import { approval, approvalPath, createApprovalBody, patchApprovalBody } from '../../../shared/api/approvals.js';
import { runPath } from '../../../shared/api/runs.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { holderOf } from '../run-callbacks/fence.js';
import { refuseNul } from '../../http/refuse-nul.js';
import type { ApprovalRequestsService } from './approval-requests-service.js';

const APPROVAL = { description: 'The approval', schema: approval };
const INVALID = {
  description:
    'Malformed body or fencing headers (`validation_failed`, paths `headers.x-worker-id`, `headers.x-run-attempt`; `step_id` when the step has no approval gate)',
};

/** The worker's side of approvals (`internal:run_callbacks`), fenced by `X-Worker-Id` and `X-Run-Attempt`; docs/approvals.md. */
export function approvalCallbackRoutes(requests: ApprovalRequestsService): DomainRoutes {
  return {
    'POST /internal/runs/{run_id}/approvals': route({
      summary:
        "The holder asks for the approval gate of `step_id` (read from the run's committed definition): `{step_id, message?, details?}`. The run moves to `awaiting_approval` and its lease ends; a retry answers the step's approval with 200.",
      params: runPath,
      preValidation: refuseNul,
      body: createApprovalBody,
      responses: {
        200: { description: 'The approval an earlier request opened', schema: approval },
        201: APPROVAL,
        404: { description: 'No such run (`resource_not_found`)' },
        409: { description: 'The headers do not name the holder (`run_not_held`), or the run is not running (`invalid_run_state`)' },
        422: INVALID,
      },
      async handle(ctx, { params, body }) {
        const holder = holderOf(ctx.req.headers);
        const { created, approval: opened } = await requests.request(params.run_id, holder, body, ctx.state.audit);
        ctx.status = created ? 201 : 200;
        ctx.body = opened;
      },
    }),
    'PATCH /internal/approvals/{approval_id}': route({
      summary: 'The worker and attempt that asked change what approvers see, while the approval is pending: `{message?, details?}`.',
      params: approvalPath,
      preValidation: refuseNul,
      body: patchApprovalBody,
      responses: {
        200: APPROVAL,
        404: { description: 'No such approval (`resource_not_found`)' },
        409: { description: 'Another worker or attempt asked for it (`run_not_held`), or it is decided (`approval_not_pending`)' },
        422: INVALID,
      },
      async handle(ctx, { params, body }) {
        ctx.body = await requests.describe(params.approval_id, holderOf(ctx.req.headers), body);
      },
    }),
  };
}
