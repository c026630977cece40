import type { Services } from '../../services.js';
import { HousekeepingRepo } from './housekeeping-repo.js';
import type { MaintenanceJob } from './job.js';

/** Rows deleted per statement (and transaction) by the expiry and retention jobs. */
export const HOUSEKEEPING_BATCH = 1000;

const DAY_MS = 86_400_000;

/** `days` before `now`. */
function daysBefore(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/**
 * A retention job: deletes what is older than `days` before the pass's `now`; `days` 0 keeps everything
 * and the job says so (`retention_days: 0`) without a statement.
 */
export function retentionJob(name: string, days: number, deleteBefore: (before: Date) => Promise<number>): MaintenanceJob {
  return {
    name,
    async run(now) {
      if (days === 0) return { deleted: 0, retention_days: 0 };
      const before = daysBefore(now, days);
      return { deleted: await deleteBefore(before), retention_days: days, before: before.toISOString() };
    },
  };
}

/**
 * The expiry and retention of what the domains built before the maintenance pass keep: dead stream
 * tickets, expired worker env keys and run tokens, and (when their settings turn it on) webhook delivery records and
 * audit entries past their retention.
 */
export function housekeepingJobs(services: Services, batch = HOUSEKEEPING_BATCH): MaintenanceJob[] {
  const { config, db } = services;
  const repo = new HousekeepingRepo(db.knex, batch);
  return [
    { name: 'stream_tickets.expire', run: async (now) => ({ deleted: await repo.deleteDeadTickets(now) }) },
    { name: 'worker_env_keys.expire', run: async (now) => ({ deleted: await repo.deleteExpiredEnvKeys(now) }) },
    { name: 'run_tokens.expire', run: async (now) => ({ deleted: await repo.deleteExpiredRunTokens(now) }) },
    retentionJob('webhook_deliveries.retention', config.webhookDeliveryRetentionDays, (before) => repo.deleteDeliveriesBefore(before)),
    retentionJob('audit_logs.retention', config.auditRetentionDays, (before) => repo.deleteAuditBefore(before)),
  ];
}

/** The maintenance pass's own history, kept `days`. */
export function historyRetentionJob(days: number, deleteBefore: (before: Date) => Promise<number>): MaintenanceJob {
  return retentionJob('maintenance_job_runs.retention', days, deleteBefore);
}
