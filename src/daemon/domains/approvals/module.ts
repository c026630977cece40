import type { DomainRoutes } from '../../http/types.js';
import type { MaintenanceJob } from '../maintenance/job.js';
import type { Services } from '../../services.js';
import { ApprovalDecisionsService } from './approval-decisions-service.js';
import { ApprovalExpiry, type ExpirySummary } from './approval-expiry.js';
import { gateDefaults } from './approval-gate.js';
import { ApprovalOutcomes } from './approval-outcomes.js';
import { ApprovalReads } from './approval-reads.js';
import { ApprovalRequestsService } from './approval-requests-service.js';
import { ApprovalsRepo } from './approvals-repo.js';
import { approvalCallbackRoutes } from './internal-routes.js';
import { approvalRoutes } from './routes.js';

export interface ApprovalsModule {
  readonly routes: readonly DomainRoutes[];
  /** Expires the pending approvals due at `now` (the maintenance tick's job). */
  expireDue(now: Date): Promise<ExpirySummary>;
  /** The maintenance pass's job that calls `expireDue`. */
  readonly maintenanceJobs: readonly MaintenanceJob[];
}

/** Approvals: the worker asks for a step's gate, people decide, a timeout decides otherwise (docs/approvals.md). */
export function approvalsModule(services: Services): ApprovalsModule {
  const repo = new ApprovalsRepo(services.db.knex);
  const defaults = gateDefaults(services.config.approvalDefaultTimeoutSeconds);
  const reads = new ApprovalReads(repo, defaults);
  const outcomes = new ApprovalOutcomes(repo, services.audit);
  const expiry = new ApprovalExpiry(repo, outcomes, services.audit);
  const requests = new ApprovalRequestsService(repo, reads, services.audit, defaults);
  return {
    routes: [
      approvalCallbackRoutes(requests),
      approvalRoutes({
        reads,
        decisions: new ApprovalDecisionsService(repo, reads, outcomes, expiry, services.audit),
        access: services.orgAccess,
        policies: services.overrideStore,
      }),
    ],
    expireDue: (now) => expiry.expireDue(now),
    maintenanceJobs: [{ name: 'approvals.expire_due', run: (now) => expiry.expireDue(now) }],
  };
}
