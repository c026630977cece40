import type { Logger } from '../../logging/logger.js';
import type { LeaseEnds, LeaseOutcome } from './lease-ends.js';
import type { LeasesRepo } from './leases-repo.js';

/** Runs reaped per transaction: a backlog after an outage is worked off in short transactions. */
const BATCH = 100;

export interface ReapOptions {
  /**
   * Reap only while holding the reaper's advisory lock (the in-daemon timer: one instance at a time does
   * the work). Without it (the maintenance tick, tests) reaping is still safe beside another reaper: rows
   * one holds are skipped by the other.
   */
  readonly exclusive?: boolean;
}

/** What one pass did; `skipped` when another instance held the lock. */
export interface ReapResult extends LeaseOutcome {
  readonly skipped: boolean;
}

/**
 * Ends expired leases by the one rule (`LeaseEnds`): requeue when no step of the attempt started, else
 * fail with `worker_lost`; a finished run whose lease expired only loses its lease. `reapExpiredLeases`
 * is what the later `POST /internal/maintenance/tick` calls; `start` runs it every interval in this
 * instance, behind `pg_try_advisory_xact_lock` (per transaction, so it is safe with a pool: the lock goes
 * with the transaction's connection).
 */
export class Reaper {
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;
  #pass: Promise<unknown> | undefined;

  constructor(
    private readonly repo: LeasesRepo,
    private readonly ends: LeaseEnds,
    private readonly log: Logger,
    private readonly intervalSeconds: number,
  ) {}

  async reapExpiredLeases(options: ReapOptions = {}): Promise<ReapResult> {
    const total = { requeued: [] as string[], failed: [] as string[], cleared: [] as string[], skipped: false };
    for (;;) {
      const batch = await this.repo.transaction(async (trx) => {
        if (options.exclusive && !(await this.repo.tryReaperLock(trx))) return undefined;
        const expired = await this.repo.lockExpired(trx, BATCH);
        return { size: expired.length, outcome: await this.ends.end(trx, expired) };
      });
      if (!batch) return { ...total, skipped: true };
      total.requeued.push(...batch.outcome.requeued);
      total.failed.push(...batch.outcome.failed);
      total.cleared.push(...batch.outcome.cleared);
      if (batch.size < BATCH) return total;
    }
  }

  /** Reaps every interval until `stop`; a pass that fails (the database down) is logged and the next one tries again. */
  start(): void {
    this.#stopped = false;
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#pass;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#pass = this.#tick().finally(() => this.#schedule());
    }, this.intervalSeconds * 1000);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    try {
      const result = await this.reapExpiredLeases({ exclusive: true });
      if (result.requeued.length + result.failed.length > 0) {
        this.log.info({ requeued: result.requeued, failed: result.failed }, 'reaped runs whose worker stopped renewing its lease');
      }
    } catch (error) {
      this.log.warn({ err: error }, 'reaping expired run leases failed; trying again next interval');
    }
  }
}
