import { setTimeout as sleep } from 'node:timers/promises';
import type { Assignment, HeartbeatAnswer, HeartbeatBody } from '../../../shared/api/workers.js';
import { isUuid } from '../../../shared/ids.js';
import type { AuditContext } from '../../audit/audit-context.js';
import { iso } from '../runs/run-view.js';
import type { LeaseEnds } from './lease-ends.js';
import type { ClaimedRow, HeldRun, LeasesRepo, NamedRun } from './leases-repo.js';
import type { WakeReason, Waiter, WorkWaker } from './work-waker.js';
import type { WorkersRepo } from './workers-repo.js';

/** What the worker is told besides its new runs. */
interface Tidings {
  readonly cancel: string[];
  readonly pause: string[];
  readonly lost: string[];
}

/** How often a worker must heartbeat: a third of the lease, so two heartbeats may be lost before it expires. */
export function heartbeatSeconds(leaseSeconds: number): number {
  return Math.max(1, Math.floor(leaseSeconds / 3));
}

/**
 * The heartbeat (docs/workers.md): records the worker, renews the leases of the runs it holds, takes back
 * what it releases, tells it what was cancelled, paused or lost, and claims queued runs for its free
 * slots, waiting (long-poll, no database connection held) while there is nothing to say.
 */
export class HeartbeatService {
  constructor(
    private readonly workers: WorkersRepo,
    private readonly leases: LeasesRepo,
    private readonly ends: LeaseEnds,
    private readonly waker: WorkWaker,
    private readonly leaseSeconds: number,
  ) {}

  async beat(body: HeartbeatBody, options: { signal?: AbortSignal; context?: AuditContext } = {}): Promise<HeartbeatAnswer> {
    const released = new Set(body.released.map((run) => run.run_id));
    const named = unique(body.running).filter((run) => !released.has(run.run_id));
    const renewable: NamedRun[] = named.filter((run) => isUuid(run.run_id)).map((run) => ({ runId: run.run_id, attempt: run.attempt }));
    const canClaim = body.free_slots > 0 && !body.draining;
    const deadline = Date.now() + body.wait_s * 1000;
    const report = () =>
      this.workers.report({
        id: body.worker_id,
        hostname: body.hostname ?? null,
        version: body.version ?? null,
        labels: body.labels ?? null,
        handlers: body.handlers ?? null,
        capacity: body.free_slots + named.length,
        running: named.length,
        draining: body.draining ?? false,
      });

    // What changed on its runs since its previous heartbeat began is news to it (the list is the state).
    const since = await report();
    await this.release(body.worker_id, body.released, options.context);
    // Woken by a control notification for this worker: answer whatever the stamps say, since a change whose
    // transaction began before `since` carries an earlier `updated_at` but commits after it.
    let control = false;
    for (;;) {
      // Made before the reads, so a notification that arrives while they run is not missed.
      const waiter = body.wait_s > 0 ? this.waker.waiter(body.worker_id, canClaim) : undefined;
      try {
        const held = await this.leases.renew(body.worker_id, renewable, this.leaseSeconds, since);
        const assignments = canClaim ? await this.claim(body.worker_id, body.free_slots, options.context) : [];
        const tidings = tell(named, held);
        const answer = this.answer(assignments, tidings);
        const news = control || assignments.length > 0 || tidings.lost.length > 0 || held.some((run) => run.changed);
        if (!waiter || news || this.waker.draining) return answer;
        const woken = await this.wait(waiter, deadline, options.signal);
        if (woken === 'gone' || woken === 'deadline' || this.waker.draining) return answer;
        // Renewing while waiting past a heartbeat's interval keeps the leases and the worker's `last_seen_at` fresh.
        if (woken === 'renew') await report();
        control = woken === 'control';
      } finally {
        waiter?.cancel();
      }
    }
  }

  private answer(assignments: Assignment[], tidings: Tidings): HeartbeatAnswer {
    return { assignments, ...tidings, heartbeat_s: heartbeatSeconds(this.leaseSeconds), lease_s: this.leaseSeconds };
  }

  /** Until woken, the deadline, the next renewal, or the caller hanging up, whichever comes first. */
  private async wait(waiter: Waiter, deadline: number, signal?: AbortSignal): Promise<WakeReason | 'deadline' | 'renew' | 'gone'> {
    if (waiter.wokenFor) return waiter.wokenFor;
    const left = deadline - Date.now();
    if (left <= 0) return 'deadline';
    const slice = Math.min(left, heartbeatSeconds(this.leaseSeconds) * 1000);
    if (signal?.aborted) return 'gone';
    const timer = new AbortController();
    let onAbort = () => {};
    const gone = new Promise<'gone'>((resolve) => (onAbort = () => resolve('gone')));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await Promise.race([
        waiter.woken,
        sleep(slice, slice === left ? ('deadline' as const) : ('renew' as const), { signal: timer.signal }),
        gone,
      ]);
    } finally {
      timer.abort();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Claims and turns each claimed run into an assignment; a run whose definition is gone is failed instead. */
  private async claim(workerId: string, slots: number, context?: AuditContext): Promise<Assignment[]> {
    const claimed = await this.leases.claim(workerId, slots, this.leaseSeconds);
    const assignments: Assignment[] = [];
    for (const row of claimed) {
      if (row.definition_json !== null) {
        assignments.push(assignment(row));
        continue;
      }
      await this.leases.transaction(async (trx) => {
        if (await this.leases.lockClaimed(trx, row.id, workerId, row.attempt)) {
          await this.ends.failDefinitionUnavailable(trx, row, workerId, context);
        }
      });
    }
    return assignments;
  }

  /** Runs handed back: requeued if no step of the attempt started, else failed `worker_lost` (the reaper's rule). */
  private async release(workerId: string, released: HeartbeatBody['released'], context?: AuditContext): Promise<void> {
    const named = unique(released)
      .filter((run) => isUuid(run.run_id))
      .map((run) => ({ runId: run.run_id, attempt: run.attempt }));
    if (named.length === 0) return;
    await this.leases.transaction(async (trx) => {
      await this.ends.end(trx, await this.leases.lockHeld(trx, workerId, named), context);
    });
  }
}

function unique(runs: readonly { run_id: string; attempt: number }[]): { run_id: string; attempt: number }[] {
  const seen = new Map<string, { run_id: string; attempt: number }>();
  for (const run of runs) seen.set(run.run_id, run);
  return [...seen.values()];
}

/** Held runs that were cancelled or paused; named runs not held (reaped, another attempt, unknown) are lost. */
function tell(named: readonly { run_id: string }[], held: readonly HeldRun[]): Tidings {
  const heldIds = new Set(held.map((run) => run.id));
  return {
    cancel: held.filter((run) => run.status === 'cancelled').map((run) => run.id),
    pause: held.filter((run) => run.status === 'paused').map((run) => run.id),
    lost: named.filter((run) => !heldIds.has(run.run_id.toLowerCase())).map((run) => run.run_id),
  };
}

function assignment(row: ClaimedRow): Assignment {
  return {
    run_id: row.id,
    attempt: row.attempt,
    workflow_id: row.workflow_id,
    org_id: row.org_id,
    flow_id: row.flow_id,
    flow_version: row.flow_version,
    flow_name: row.flow_name,
    name: row.name,
    definition: row.definition_json!,
    params: row.params_json,
    targets: row.targets_json,
    target_devices: row.target_devices ?? {},
    run_vars: row.run_vars_json,
    status: 'running',
    ...(row.completed_steps ? { completed_steps: row.completed_steps } : {}),
    ...(row.approved_steps ? { approved_steps: row.approved_steps } : {}),
    lease_expires_at: iso(row.lease_expires_at),
  };
}
