import { APPROVAL_LIMITS, type Approval } from '../../../shared/api/approvals.js';
import { isUuid } from '../../../shared/ids.js';
import { problems } from '../../../shared/api/problems.js';
import type { ResolvedGate } from './approval-gate.js';
import { approvalNotFound } from './approval-problems.js';
import { approvalView, type ApprovalRow, type DecisionRow } from './approval-view.js';
import type { ApprovalFilter, ApprovalsRepo, Decider } from './approvals-repo.js';

export interface ApprovalPage {
  readonly items: Approval[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
}

interface Page {
  readonly limit: number;
  readonly offset: number;
}

/** The approver's reads: one approval, lists, the inbox, a run's approvals, and the gates' defaults. */
export class ApprovalReads {
  constructor(
    private readonly repo: ApprovalsRepo,
    private readonly defaults: ResolvedGate,
  ) {}

  /** One approval of the organization; 404 for another's or a malformed id. */
  async get(orgId: string, id: string): Promise<Approval> {
    const row = isUuid(id) ? await this.repo.get(orgId, id) : undefined;
    if (!row) throw approvalNotFound();
    return this.withDecisions(row);
  }

  /** One approval, whatever its organization (after the worker's or the daemon's own writes). */
  async byId(id: string): Promise<Approval> {
    const row = await this.repo.getAny(id);
    if (!row) throw approvalNotFound();
    return this.withDecisions(row);
  }

  async list(orgId: string, filter: ApprovalFilter): Promise<ApprovalPage> {
    return this.page(await this.repo.list(orgId, filter), filter);
  }

  /**
   * The caller's inbox: what it may decide now (none at all when `decider` is undefined: it may decide
   * nothing), so not an approval past its deadline that the maintenance pass has yet to expire.
   */
  async pending(orgId: string, decider: Decider | undefined, page: Page): Promise<ApprovalPage> {
    if (!decider) return { items: [], total: 0, limit: page.limit, offset: page.offset };
    return this.page(await this.repo.pendingFor(orgId, decider, new Date(), page), page);
  }

  /** A run's approvals; 404 when the run is not one of the organization's. */
  async forRun(orgId: string, runId: string, page: Page): Promise<ApprovalPage> {
    if (!isUuid(runId) || !(await this.repo.runVisible(orgId, runId))) throw problems.resourceNotFound('Run');
    return this.list(orgId, { runId, ...page });
  }

  nodeDefaults() {
    return {
      ...this.defaults,
      limits: { max_required_approvals: APPROVAL_LIMITS.maxRequiredApprovals, max_timeout_seconds: APPROVAL_LIMITS.maxTimeoutSeconds },
    };
  }

  private async withDecisions(row: ApprovalRow): Promise<Approval> {
    return approvalView(row, await this.repo.decisionsOf([row.id]));
  }

  private async page({ rows, total }: { rows: ApprovalRow[]; total: number }, page: Page): Promise<ApprovalPage> {
    const byApproval = new Map<string, DecisionRow[]>();
    for (const decision of await this.repo.decisionsOf(rows.map((row) => row.id))) {
      byApproval.set(decision.approval_id, [...(byApproval.get(decision.approval_id) ?? []), decision]);
    }
    return { items: rows.map((row) => approvalView(row, byApproval.get(row.id) ?? [])), total, limit: page.limit, offset: page.offset };
  }
}
