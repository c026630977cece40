import type { Approval } from '../../../shared/api/approvals.js';

/**
 * Told of each approval opened, after its transaction commits (the notifications issue plugs in here);
 * a failure is logged by the caller and changes nothing of the approval.
 */
export interface ApprovalNotifier {
  pending(approval: Approval): Promise<void>;
}

/** Until notifications exist: nobody to tell. */
export const NO_APPROVAL_NOTIFIER: ApprovalNotifier = { pending: async () => {} };
