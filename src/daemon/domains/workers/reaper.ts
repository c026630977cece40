import type { Logger } from '../../logging/logger.js';
import type { MaintenanceJob } from '../maintenance/job.js';
import type { LeaseEnds, LeaseOutcome } from './lease-ends.js';
import type { LeasesRepo } from './leases-repo.js';

/** Runs reaped per transaction: a backlog after an outage is worked off in short transactions. */
const BATCH = 100;

/**
 * Ends expired leases by the one rule (`LeaseEnds`): requeue when no step of the attempt started, else
 * fail with `worker_lost`; a finished run whose lease expired only loses its lease. It runs as a job of
 * the maintenance pass (`leaseReapingJob`): on each instance's maintenance timer, one instance at a time,
 * and on `POST /internal/maintenance/tick`. Safe beside another reaper: rows one holds are skipped by the
 * other (`FOR UPDATE SKIP LOCKED`).
 */
export class Reaper {
  constructor(
    private readonly repo: LeasesRepo,
    private readonly ends: LeaseEnds,
  ) {}

  async reapExpiredLeases(): Promise<LeaseOutcome> {
    const total: LeaseOutcome = { requeued: [], failed: [], cleared: [] };
    for (;;) {
      const batch = await this.repo.transaction(async (trx) => {
        const expired = await this.repo.lockExpired(trx, BATCH);
        return { size: expired.length, outcome: await this.ends.end(trx, expired) };
      });
      total.requeued.push(...batch.outcome.requeued);
      total.failed.push(...batch.outcome.failed);
      total.cleared.push(...batch.outcome.cleared);
      if (batch.size < BATCH) return total;
    }
  }
}

/**
 * The reaper as a maintenance job. Leases are set and renewed on the database's clock, so expiry is
 * judged on it too, not on the pass's `now`. Its summary counts; the log names the runs.
 */
export function leaseReapingJob(reaper: Reaper, log: Logger): MaintenanceJob {
  return {
    name: 'runs.reap_expired_leases',
    async run() {
      const { requeued, failed, cleared } = await reaper.reapExpiredLeases();
      if (requeued.length + failed.length > 0) log.info({ requeued, failed }, 'reaped runs whose worker stopped renewing its lease');
      return { requeued: requeued.length, failed: failed.length, cleared: cleared.length };
    },
  };
}
