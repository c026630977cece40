import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Plan } from '../../../shared/api/config-exchange.js';
import { Problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { AuditContext } from '../../audit/audit-context.js';
import { isDatabaseUnavailable } from '../../db/database-errors.js';
import { problemBody } from '../../http/middleware/problem-response.js';
import type { Logger } from '../../logging/logger.js';
import type { OrgsRepo } from '../../tenancy/orgs-repo.js';
import { ApplyCancelled, applyResultOf, type ConfigExchangeEngine, type Org } from './engine/index.js';
import type { OperationRow, OperationsRepo } from './repos/operations-repo.js';

/** Longest a claimed operation is its instance's before another may take it over (an apply is one short transaction). */
const LEASE_SECONDS = 600;
/** How often an idle instance looks for operations another instance queued. */
const POLL_MS = 2000;

/**
 * Runs queued operations. Every instance runs one: woken by its own instance's requests at once, and
 * polling for the rest (operations queued on an instance that stopped, or whose runner is busy). A claim
 * is a SKIP LOCKED statement, so two instances never run one operation at once.
 */
export class OperationRunner {
  readonly instance = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;
  #pass: Promise<unknown> | undefined;
  #again = false;

  constructor(
    private readonly engine: ConfigExchangeEngine,
    private readonly repo: OperationsRepo,
    private readonly orgs: OrgsRepo,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.#stopped = false;
    this.wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#pass;
  }

  wake(): void {
    if (this.#stopped) return;
    if (this.#pass) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#pass = this.#loop().finally(() => (this.#pass = undefined));
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.runQueued();
      } catch (error) {
        if (!isDatabaseUnavailable(error)) this.log.warn({ err: error }, 'the configuration exchange pass failed; trying again');
      }
    } while (this.#again && !this.#stopped);
    if (this.#stopped) return;
    this.#timer = setTimeout(() => this.wake(), POLL_MS);
    this.#timer.unref();
  }

  /** Claims and runs operations until none is left; how many ran. */
  async runQueued(): Promise<number> {
    let ran = 0;
    for (let row = await this.repo.claim(this.instance, LEASE_SECONDS); row; row = await this.repo.claim(this.instance, LEASE_SECONDS)) {
      await this.#run(row);
      ran += 1;
    }
    return ran;
  }

  async #run(row: OperationRow): Promise<void> {
    const id = row.correlation_id;
    try {
      const org = await this.#org(row.org_id);
      if (row.mode === 'apply') return await this.#apply(row);
      await this.repo.progress(id, { phase: row.mode === 'export' ? 'reading' : 'planning', done: 0, total: 1 });
      const families = row.families_json ?? undefined;
      const result =
        row.mode === 'export'
          ? await this.engine.export({ org, families })
          : await this.engine.plan(this.engine.parse(row.bundle ?? ''), { planId: id, org, families, prune: row.prune });
      const cancelled = await this.repo.cancelRequested(id);
      await this.repo.finish(id, cancelled ? { status: 'cancelled' } : { status: 'succeeded', result });
    } catch (error) {
      await this.#fail(row, error);
    }
  }

  /** The result is written in the apply's own transaction: an apply that committed is never run again. */
  async #apply(row: OperationRow): Promise<void> {
    const id = row.correlation_id;
    const planRow = row.plan_id ? await this.repo.find(row.plan_id) : undefined;
    if (!planRow || planRow.mode !== 'plan' || planRow.status !== 'succeeded') throw problems.resourceNotFound('Plan');
    const plan = planRow.result_json as Plan;
    await this.repo.progress(id, { phase: 'applying', done: 0, total: plan.changes.length });
    const operator = {
      correlationId: id,
      actor: { sub: row.requested_by_sub, username: row.requested_by_username },
      audit: auditContext(row),
    };
    try {
      await this.engine.apply(plan, await this.#org(planRow.org_id), operator, async (trx) => {
        if (await this.repo.cancelRequested(id, trx)) return true;
        await this.repo.finish(id, { status: 'succeeded', result: applyResultOf(plan) }, trx);
        return false;
      });
    } catch (error) {
      if (!(error instanceof ApplyCancelled)) throw error;
      await this.repo.finish(id, { status: 'cancelled' });
    }
  }

  async #org(orgId: string | null): Promise<Org | undefined> {
    if (!orgId) return undefined;
    const org = await this.orgs.findByRef(orgId);
    if (!org) throw problems.resourceNotFound('Organization');
    return { id: org.id, slug: org.slug };
  }

  async #fail(row: OperationRow, error: unknown): Promise<void> {
    if (isDatabaseUnavailable(error)) throw error; // left running: claimed again once its lease runs out
    const known = error instanceof Problem ? error : problems.internal();
    if (known !== error) this.log.error({ err: error, correlation_id: row.correlation_id }, 'a configuration exchange operation failed');
    const body = JSON.parse(problemBody(known, row.correlation_id)) as Record<string, unknown>;
    await this.repo.finish(row.correlation_id, { status: 'failed', error: body });
  }
}

/** The audit context of the request that queued the operation, its correlation id as the request id. */
export function auditContext(row: OperationRow): AuditContext {
  return {
    requestId: row.correlation_id,
    route: 'POST /config-exchange/operations',
    clientIp: row.client_ip ?? '',
    userAgent: row.user_agent ?? undefined,
    ...(row.requested_by_sub ? { subject: row.requested_by_sub } : {}),
    ...(row.requested_by_username ? { username: row.requested_by_username } : {}),
  };
}
