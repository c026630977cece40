import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';

export function approvalNotFound(): Problem {
  return problems.resourceNotFound('Approval');
}

/** A decided, expired or cancelled approval takes no decision and no change; `current_status` says which. */
export function approvalNotPending(status: string): Problem {
  return problem('approval_not_pending', `The approval is ${status}, no longer pending.`, { current_status: status });
}
