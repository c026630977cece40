import type { Knex } from 'knex';
import type { ApprovalStatus } from '../../../shared/api/approvals.js';
import { pageWithTotal } from '../../db/page.js';
import { INTERNAL_RUN_COLUMNS, type InternalRunRow } from '../run-callbacks/internal-run-view.js';
import type { ResolvedGate } from './approval-gate.js';
import { APPROVAL_COLUMNS, type ApprovalRow, type DecisionRow } from './approval-view.js';

export type ApprovalsTx = Knex.Transaction;

/** An `approvals` row as the writers read it, locked. */
export interface LockedApproval {
  readonly id: string;
  readonly org_id: string;
  readonly run_id: string;
  readonly step_id: string;
  readonly status: ApprovalStatus;
  readonly required_approvals: number;
  readonly approver_role: string | null;
  readonly allow_starter: boolean;
  readonly timeout_action: 'approve' | 'reject';
  readonly expires_at: Date | string | null;
  readonly requested_by_worker: string;
  readonly requested_attempt: number;
}

const LOCKED_COLUMNS = [
  'id',
  'org_id',
  'run_id',
  'step_id',
  'status',
  'required_approvals',
  'approver_role',
  'allow_starter',
  'timeout_action',
  'expires_at',
  'requested_by_worker',
  'requested_attempt',
] as const;

export interface NewApproval {
  readonly runId: string;
  readonly orgId: string;
  readonly stepId: string;
  readonly message: string | null;
  readonly details: Record<string, unknown>;
  readonly gate: ResolvedGate;
  readonly workerId: string;
  readonly attempt: number;
}

export interface ApprovalFilter {
  readonly status?: ApprovalStatus | undefined;
  readonly runId?: string | undefined;
  readonly flowId?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** Who asks for their inbox: their subject and their membership role in the organization (none: null). */
export interface Decider {
  readonly sub: string;
  readonly role: string | null;
}

/** How an approval ends. */
export interface ApprovalEnd {
  readonly status: Exclude<ApprovalStatus, 'pending'>;
  readonly timeoutOutcome?: 'approved' | 'rejected';
  /** When it ended; the database's clock when absent. */
  readonly at?: Date;
}

const NEWEST_FIRST = [
  { column: 'a.requested_at', order: 'desc' },
  { column: 'a.id', order: 'desc' },
] as const;

/** Approvals, their decisions, and the moves of the run they gate (docs/approvals.md). */
export class ApprovalsRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: ApprovalsTx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  /** Approvals of the organization's live runs, joined to them. */
  private visible(db: Knex | ApprovalsTx, orgId: string): Knex.QueryBuilder {
    return db('approvals as a').join('runs as r', 'r.id', 'a.run_id').where('a.org_id', orgId).whereNull('r.deleted_at');
  }

  get(orgId: string, id: string, db: Knex | ApprovalsTx = this.knex): Promise<ApprovalRow | undefined> {
    return this.visible(db, orgId).where('a.id', id).first(APPROVAL_COLUMNS);
  }

  /** One approval by id with its run, whatever the organization (the worker's side and the expiry). */
  getAny(id: string, db: Knex | ApprovalsTx = this.knex): Promise<ApprovalRow | undefined> {
    return db('approvals as a').join('runs as r', 'r.id', 'a.run_id').where('a.id', id).first(APPROVAL_COLUMNS);
  }

  list(orgId: string, filter: ApprovalFilter): Promise<{ rows: ApprovalRow[]; total: number }> {
    const base = this.visible(this.knex, orgId);
    if (filter.status) base.where('a.status', filter.status);
    if (filter.runId) base.where('a.run_id', filter.runId);
    if (filter.flowId) base.where('r.flow_id', filter.flowId);
    return pageWithTotal<ApprovalRow>(this.knex, base, APPROVAL_COLUMNS, NEWEST_FIRST, filter);
  }

  /**
   * The pending approvals `decider` could decide at `now`: not past its deadline, not a run it started
   * unless the gate allows it, the gate's role if it names one, and not one it decided already.
   */
  pendingFor(
    orgId: string,
    decider: Decider,
    now: Date,
    page: { limit: number; offset: number },
  ): Promise<{ rows: ApprovalRow[]; total: number }> {
    const base = this.visible(this.knex, orgId)
      .where('a.status', 'pending')
      .where((q) => q.whereNull('a.expires_at').orWhere('a.expires_at', '>', now))
      .where((q) => q.where('a.allow_starter', true).orWhereRaw('r.created_by IS DISTINCT FROM ?', [decider.sub]))
      .where((q) =>
        decider.role === null ? q.whereNull('a.approver_role') : q.whereNull('a.approver_role').orWhere('a.approver_role', decider.role),
      )
      .whereNotExists((q) =>
        q.select(this.knex.raw('1')).from('approval_decisions as d').whereRaw('d.approval_id = a.id').where('d.user_id', decider.sub),
      );
    return pageWithTotal<ApprovalRow>(this.knex, base, APPROVAL_COLUMNS, NEWEST_FIRST, page);
  }

  /** Whether the organization has this live run. */
  async runVisible(orgId: string, runId: string): Promise<boolean> {
    return (await this.knex('runs').where({ id: runId, org_id: orgId }).whereNull('deleted_at').first('id')) !== undefined;
  }

  /** The decisions of the approvals, oldest first. */
  decisionsOf(approvalIds: readonly string[], db: Knex | ApprovalsTx = this.knex): Promise<DecisionRow[]> {
    if (approvalIds.length === 0) return Promise.resolve([]);
    return db('approval_decisions')
      .whereIn('approval_id', approvalIds)
      .orderBy([{ column: 'decided_at' }, { column: 'id' }])
      .select('approval_id', 'user_id', 'user_name', 'decision', 'comment', 'decided_at');
  }

  /** The run, locked for the transaction (always locked before its approvals, so no two writers deadlock). */
  lockRun(trx: ApprovalsTx, runId: string): Promise<InternalRunRow | undefined> {
    return trx('runs').where({ id: runId }).forUpdate().first(INTERNAL_RUN_COLUMNS);
  }

  /** The committed definition the run was admitted with (null when its flow was purged). */
  async definition(trx: ApprovalsTx, run: InternalRunRow): Promise<Record<string, unknown> | null> {
    if (run.flow_id === null) return null;
    const row = await trx('flow_versions').where({ flow_id: run.flow_id, version: run.flow_version }).first('definition_json');
    return (row as { definition_json: Record<string, unknown> } | undefined)?.definition_json ?? null;
  }

  /** The run and the organization of an approval, unlocked: where a writer starts, to lock the run first. */
  owner(id: string): Promise<{ run_id: string; org_id: string } | undefined> {
    return this.knex('approvals').where({ id }).first('run_id', 'org_id');
  }

  /** The run of an approval the organization sees (its run not soft-deleted), unlocked: where a decision starts. */
  visibleOwner(orgId: string, id: string): Promise<{ run_id: string; org_id: string } | undefined> {
    return this.visible(this.knex, orgId).where('a.id', id).first('a.run_id', 'a.org_id');
  }

  lock(trx: ApprovalsTx, id: string): Promise<LockedApproval | undefined> {
    return trx('approvals').where({ id }).forUpdate().first(LOCKED_COLUMNS);
  }

  lockForStep(trx: ApprovalsTx, runId: string, stepId: string): Promise<LockedApproval | undefined> {
    return trx('approvals').where({ run_id: runId, step_id: stepId }).forUpdate().first(LOCKED_COLUMNS);
  }

  /** Opens a pending approval; it expires `timeout_seconds` from now (never when 0). */
  async insert(trx: ApprovalsTx, approval: NewApproval): Promise<LockedApproval> {
    const { gate } = approval;
    const [row] = await trx('approvals')
      .insert({
        run_id: approval.runId,
        org_id: approval.orgId,
        step_id: approval.stepId,
        message: approval.message,
        details_json: JSON.stringify(approval.details),
        required_approvals: gate.required_approvals,
        approver_role: gate.approver_role,
        allow_starter: gate.allow_starter,
        timeout_seconds: gate.timeout_seconds,
        timeout_action: gate.timeout_action,
        requested_by_worker: approval.workerId,
        requested_attempt: approval.attempt,
        expires_at: gate.timeout_seconds > 0 ? trx.raw('now() + make_interval(secs => ?::integer)', [gate.timeout_seconds]) : null,
      })
      .returning(LOCKED_COLUMNS);
    return row as LockedApproval;
  }

  /** What approvers see changes (the worker's PATCH); absent fields stay. */
  async describe(
    trx: ApprovalsTx,
    id: string,
    change: { message?: string | null | undefined; details?: Record<string, unknown> | undefined },
  ): Promise<void> {
    await trx('approvals')
      .where({ id })
      .update({
        updated_at: trx.fn.now(),
        ...(change.message !== undefined ? { message: change.message } : {}),
        ...(change.details !== undefined ? { details_json: JSON.stringify(change.details) } : {}),
      });
  }

  async end(trx: ApprovalsTx, id: string, end: ApprovalEnd): Promise<void> {
    const at = end.at ?? trx.fn.now();
    await trx('approvals')
      .where({ id })
      .update({ status: end.status, timeout_outcome: end.timeoutOutcome ?? null, resolved_at: at, updated_at: trx.fn.now() });
  }

  async hasDecided(trx: ApprovalsTx, id: string, userId: string): Promise<boolean> {
    return (await trx('approval_decisions').where({ approval_id: id, user_id: userId }).first('id')) !== undefined;
  }

  async addDecision(
    trx: ApprovalsTx,
    decision: { approvalId: string; userId: string; userName: string | null; decision: 'approve' | 'reject'; comment: string | null },
  ): Promise<void> {
    await trx('approval_decisions').insert({
      approval_id: decision.approvalId,
      user_id: decision.userId,
      user_name: decision.userName,
      decision: decision.decision,
      comment: decision.comment,
    });
  }

  async approvalsCount(trx: ApprovalsTx, id: string): Promise<number> {
    const [row] = await trx('approval_decisions').where({ approval_id: id, decision: 'approve' }).count<{ n: string | number }[]>('* as n');
    return Number(row?.n ?? 0);
  }

  /** Pending approvals whose time is up at `now`, soonest first (unlocked: each is then locked run first). */
  async due(now: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.knex('approvals')
      .where('status', 'pending')
      .whereNotNull('expires_at')
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .select('id');
    return rows.map((row) => row.id);
  }

  /** The worker asked: the run waits, held by nobody (no worker, no lease). */
  async awaitApproval(trx: ApprovalsTx, runId: string): Promise<void> {
    await trx('runs').where({ id: runId }).update({ status: 'awaiting_approval', worker_id: null, lease_expires_at: null });
  }

  /** Approved: back to the queue for any worker's next claim (it started already, so `started_at` stays). */
  async requeue(trx: ApprovalsTx, runId: string): Promise<void> {
    await trx('runs').where({ id: runId }).update({ status: 'queued', updated_at: trx.fn.now() });
  }

  /** Rejected or timed out to reject: the run fails now, `error_json` saying why. */
  async fail(trx: ApprovalsTx, runId: string, error: Record<string, unknown>): Promise<InternalRunRow> {
    const [row] = await trx('runs')
      .where({ id: runId })
      .update({ status: 'failed', finished_at: trx.fn.now(), updated_at: trx.fn.now(), error_json: JSON.stringify(error) })
      .returning(INTERNAL_RUN_COLUMNS);
    return row as InternalRunRow;
  }
}
