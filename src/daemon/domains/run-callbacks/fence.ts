import { holderHeaders, RUN_ATTEMPT_HEADER, WORKER_ID_HEADER } from '../../../shared/api/run-callbacks.js';
import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { RunStatus } from '../runs/run-view.js';

/** The worker and attempt a mutating callback names (`X-Worker-Id`, `X-Run-Attempt`). */
export interface Holder {
  readonly workerId: string;
  readonly attempt: number;
}

/** What fencing reads of a run's row (locked by the caller). */
export interface HeldFacts {
  readonly status: RunStatus;
  readonly worker_id: string | null;
  readonly attempt: number;
  readonly lease_expires_at: Date | string | null;
}

/** The holder a request names; 422 naming the header when either is missing or malformed. */
export function holderOf(headers: Readonly<Record<string, string | string[] | undefined>>): Holder {
  const parsed = holderHeaders.safeParse({
    [WORKER_ID_HEADER]: headers[WORKER_ID_HEADER],
    [RUN_ATTEMPT_HEADER]: headers[RUN_ATTEMPT_HEADER],
  });
  if (!parsed.success) {
    throw problems.validation(parsed.error.issues.map((i) => ({ path: `headers.${String(i.path[0])}`, message: i.message })));
  }
  return { workerId: parsed.data[WORKER_ID_HEADER], attempt: Number(parsed.data[RUN_ATTEMPT_HEADER]) };
}

/** The contract's "held": this worker, this attempt, and a lease not ended. */
export function isHeldBy(run: HeldFacts, holder: Holder): boolean {
  return run.worker_id === holder.workerId && run.attempt === holder.attempt && run.lease_expires_at !== null;
}

export function runNotFound(): Problem {
  return problems.resourceNotFound('Run');
}

export function runNotHeld(holder: Holder): Problem {
  return problem('run_not_held', 'The run is not held by this worker in this attempt.', {
    worker_id: holder.workerId,
    attempt: holder.attempt,
  });
}

/**
 * The one fencing check of every mutating callback, in the contract's order: unknown run 404, not held
 * 409 `run_not_held`, a status outside `allowed` 409 `invalid_run_state` (no `allowed`: any status).
 * `held` says whether the caller holds the run (usually `isHeldBy(run, holder)`; the internal cancel
 * also accepts the parent's holder).
 */
export function fence<R extends HeldFacts>(
  run: R | undefined,
  held: (run: R) => boolean,
  holder: Holder,
  allowed?: readonly RunStatus[],
  what = 'changed',
): R {
  if (!run) throw runNotFound();
  if (!held(run)) throw runNotHeld(holder);
  if (allowed && !allowed.includes(run.status)) {
    throw problem('invalid_run_state', `A ${run.status} run cannot be ${what}.`, { current_status: run.status });
  }
  return run;
}
