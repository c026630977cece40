import {
  approval,
  approvalList,
  approvalListQuery,
  approvalNodeDefaults,
  approvalPath,
  decisionBody,
  pendingApprovalsQuery,
  runApprovalPath,
  runApprovalsQuery,
} from '../../../shared/api/approvals.js';
import { noQuery, runPath } from '../../../shared/api/runs.js';
import type { EffectivePolicies } from '../../authz/effective-policies.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import { activeOrg } from '../../http/active-org.js';
import { refuseNul } from '../../http/refuse-nul.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import type { DecisionBody } from '../../../shared/api/approvals.js';
import type { ApprovalDecisionsService } from './approval-decisions-service.js';
import type { ApprovalReads } from './approval-reads.js';
import { approverOf, mayDecide } from './approver.js';

export interface ApprovalRouteServices {
  readonly reads: ApprovalReads;
  readonly decisions: ApprovalDecisionsService;
  readonly access: OrgAccessRepo;
  readonly policies: EffectivePolicies;
}

const APPROVAL = { description: 'The approval', schema: approval };
const LIST = { description: '`items`, `total`, `limit`, `offset`', schema: approvalList };
const NOT_FOUND = { description: 'No such approval in the active organization (`resource_not_found`)' };
const DECISION_RESPONSES = {
  200: { description: 'The approval after the decision', schema: approval },
  403: { description: "The caller started the run (`separation_of_duties`), or lacks the gate's role (`approver_role_required`)" },
  404: NOT_FOUND,
  409: { description: 'Not pending any more (`approval_not_pending`), or the caller decided already (`already_decided`)' },
};

/**
 * Approvals of the active organization (`approval:view`, `approval:decide`); docs/approvals.md. Ids of
 * another organization's approvals and runs answer 404, as runs do.
 */
export function approvalRoutes(services: ApprovalRouteServices): DomainRoutes {
  const { reads, decisions, access, policies } = services;
  const decideAs = async (ctx: AppContext, approvalId: string, runId: string | undefined, body: DecisionBody) => {
    const org = activeOrg(ctx);
    const approver = await approverOf(ctx, access, org.id);
    ctx.body = await decisions.decide(org.id, approvalId, runId, approver, body, ctx.state.audit);
  };
  return {
    'GET /approvals/node-defaults': route({
      summary: "What an approval gate's absent fields default to, and the bounds of its fields.",
      query: noQuery,
      responses: { 200: { description: 'The defaults and limits', schema: approvalNodeDefaults } },
      handle(ctx) {
        ctx.body = reads.nodeDefaults();
      },
    }),
    'GET /approvals/pending': route({
      summary:
        "The caller's inbox: pending approvals of the active organization it may decide now (not a run it started unless the gate allows it, the gate's role if one is named, not decided by it yet).",
      query: pendingApprovalsQuery,
      responses: { 200: LIST },
      async handle(ctx, { query }) {
        const org = activeOrg(ctx);
        const decider = mayDecide(ctx, policies) ? await approverOf(ctx, access, org.id) : undefined;
        ctx.body = await reads.pending(org.id, decider, query);
      },
    }),
    'GET /approvals': route({
      summary: 'Approvals of the active organization, newest first. Filters: `status`, `run_id`, `flow_id`; `limit` (50, ≤ 500), `offset`.',
      query: approvalListQuery,
      responses: { 200: LIST },
      async handle(ctx, { query }) {
        ctx.body = await reads.list(activeOrg(ctx).id, {
          status: query.status,
          runId: query.run_id,
          flowId: query.flow_id,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'GET /approvals/{approval_id}': route({
      summary: 'One approval with its decisions.',
      params: approvalPath,
      query: noQuery,
      responses: { 200: APPROVAL, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await reads.get(activeOrg(ctx).id, params.approval_id);
      },
    }),
    'GET /runs/{run_id}/approvals': route({
      summary: "A run's approvals, newest first.",
      params: runPath,
      query: runApprovalsQuery,
      responses: { 200: LIST, 404: { description: 'No such run in the active organization (`resource_not_found`)' } },
      async handle(ctx, { params, query }) {
        ctx.body = await reads.forRun(activeOrg(ctx).id, params.run_id, query);
      },
    }),
    'POST /approvals/{approval_id}/decision': route({
      summary:
        '`{decision: approve|reject, comment?}`, audited. One rejection fails the run; `required_approvals` distinct approvals queue it again.',
      params: approvalPath,
      // A comment is stored as text and audited as jsonb, neither of which holds NUL: 422, not a 500.
      preValidation: refuseNul,
      body: decisionBody,
      responses: { ...DECISION_RESPONSES, 422: { description: '`validation_failed`' } },
      async handle(ctx, { params, body }) {
        await decideAs(ctx, params.approval_id, undefined, body);
      },
    }),
    'POST /runs/{run_id}/approvals/{approval_id}/decision': route({
      summary: 'As `POST /approvals/{approval_id}/decision`, for an approval of the run named.',
      params: runApprovalPath,
      preValidation: refuseNul,
      body: decisionBody,
      responses: { ...DECISION_RESPONSES, 422: { description: '`validation_failed`' } },
      async handle(ctx, { params, body }) {
        await decideAs(ctx, params.approval_id, params.run_id, body);
      },
    }),
  };
}
