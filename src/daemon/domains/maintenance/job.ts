/**
 * One piece of housekeeping the maintenance pass runs (docs/maintenance.md). Jobs are owned by the
 * module whose rows they keep (the workers module's lease reaping, the approvals' expiry) and handed to
 * the maintenance module by the composition root, so the maintenance code imports none of them.
 */
export interface MaintenanceJob {
  /** Stable, unique, `domain.what` (`runs.reap_expired_leases`): the key its runs are recorded under. */
  readonly name: string;
  /**
   * Does the work due at `now` (the pass's clock) and answers what it did: an object of counts or ids is
   * recorded as is, anything else as `{result}`. It must be safe while the same job runs on another
   * instance (the tick route takes no lock) and work in bounded batches, each its own short transaction.
   */
  run(now: Date): Promise<unknown>;
}

/** What set a pass going: an instance's own timer, or `POST /internal/maintenance/tick`. */
export type PassTrigger = 'timer' | 'tick';

/** A job's answer as recorded: a plain object as is, nothing as `{}`, any other value as `{result}`. */
export function summaryOf(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return { result: value };
}
