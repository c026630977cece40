import { isUuid } from '../../../shared/ids.js';
import type { RunStatus } from '../runs/run-view.js';
import { fence, type Holder, isHeldBy, runNotFound } from './fence.js';
import type { InternalRunRow } from './internal-run-view.js';
import type { CallbacksTx, RunCallbacksRepo } from './run-callbacks-repo.js';

/** The run, locked in a transaction, once the fencing check has passed: how every fenced callback starts. */
export class HeldRuns {
  constructor(private readonly repo: RunCallbacksRepo) {}

  /**
   * Locks the run, fences it (`fence`: 404, 409 `run_not_held`, 409 `invalid_run_state` unless its status
   * is in `allowed`) and runs `work` in the same transaction.
   */
  hold<T>(
    runId: string,
    holder: Holder,
    allowed: readonly RunStatus[] | undefined,
    what: string,
    work: (trx: CallbacksTx, run: InternalRunRow) => Promise<T>,
  ): Promise<T> {
    if (!isUuid(runId)) throw runNotFound();
    return this.repo.transaction(async (trx) => {
      const run = fence(await this.repo.lock(trx, runId), (r) => isHeldBy(r, holder), holder, allowed, what);
      return work(trx, run);
    });
  }
}
