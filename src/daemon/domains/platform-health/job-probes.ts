import type { JobRow } from '../maintenance/job-runs-repo.js';
import type { HealthProbe } from './health-runner.js';

export interface PassOptions {
  /** The maintenance pass's interval (SERVICE_MAINTENANCE_INTERVAL_SECONDS). */
  readonly intervalSeconds: number;
  readonly timerEnabled: boolean;
  readonly schedulerEnabled: boolean;
  /** The jobs this instance's pass runs. */
  readonly registered: readonly string[];
}

/** A pass is overdue after three intervals, and never before a minute: one slow or skipped pass is no alarm. */
function overdueMs(options: PassOptions): number {
  return Math.max(3 * options.intervalSeconds, 60) * 1000;
}

const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());

/**
 * The maintenance pass, from the jobs' recorded last runs (any instance's): `degraded` when a registered
 * job's last run failed, or no pass ran within the overdue time (no instance runs the timer, and nothing
 * calls the tick), else ok.
 */
export function maintenanceProbe(jobs: () => Promise<JobRow[]>, options: PassOptions, now: () => Date): HealthProbe {
  return {
    name: 'maintenance',
    run: async () => {
      const rows = (await jobs()).filter((row) => options.registered.includes(row.name));
      const lastPass = rows.reduce<Date | null>((latest, row) => {
        const at = new Date(row.last_started_at);
        return latest === null || at > latest ? at : latest;
      }, null);
      const failed = rows.filter((row) => row.last_outcome === 'failed').map((row) => row.name);
      const overdue = lastPass === null || now().getTime() - lastPass.getTime() > overdueMs(options);
      const detail = {
        timer_enabled: options.timerEnabled,
        interval_seconds: options.intervalSeconds,
        last_pass_at: iso(lastPass),
        failed_jobs: failed,
        ...(overdue ? { reason: lastPass === null ? 'never_ran' : 'overdue' } : failed.length > 0 ? { reason: 'job_failed' } : {}),
      };
      return { status: overdue || failed.length > 0 ? 'degraded' : 'ok', detail };
    },
  };
}

/**
 * The scheduler: this instance's embedded loop when it runs one; otherwise due schedules fire only through
 * the maintenance pass's `schedules.fire_due` (or an external scheduler's trigger), so that job's last
 * success tells.
 */
export function schedulerProbe(jobs: () => Promise<JobRow[]>, options: PassOptions, now: () => Date): HealthProbe {
  return {
    name: 'scheduler',
    run: async () => {
      const fire = (await jobs()).find((row) => row.name === 'schedules.fire_due');
      const lastSuccess = fire?.last_succeeded_at ? new Date(fire.last_succeeded_at) : null;
      const detail = { embedded_loop: options.schedulerEnabled, fire_due_last_succeeded_at: iso(lastSuccess) };
      if (options.schedulerEnabled) return { status: 'ok', detail };
      const recent = lastSuccess !== null && now().getTime() - lastSuccess.getTime() <= overdueMs(options);
      return { status: recent ? 'ok' : 'degraded', detail: recent ? detail : { ...detail, reason: 'no_recent_fire_pass' } };
    },
  };
}
