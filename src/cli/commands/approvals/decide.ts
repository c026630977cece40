import type { Command } from 'commander';
import type { DecisionBody } from '../../../shared/api/approvals.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { enc, flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { approvalArgument, type Approval } from './types.js';

/** What approve and reject share: the decision they send. */
export type Decision = DecisionBody['decision'];

export interface ApprovalsDecideOptions {
  readonly approval: string;
  readonly comment: string | undefined;
  readonly json: boolean;
}

export const defineDecision = (description: string) => (command: Command) =>
  void jsonFlag(approvalArgument(command.description(description)).option('--comment <text>', 'why (kept with the decision, audited)'));

export const invokeDecision =
  (decision: Decision): Invoke =>
  ({ positionals, raw, ctx }) =>
    runApprovalsDecide(decision, parseApprovalsDecideOptions(positionals[0]!, raw), ctx);

export function parseApprovalsDecideOptions(approval: string, raw: Record<string, unknown>): ApprovalsDecideOptions {
  return { approval, comment: flag.string(raw, 'comment'), json: flag.json(raw) };
}

/** The sentence a decision ends with: what it did to the approval, and so to the run. */
function outcome(decision: Decision, a: Approval): string {
  const what = decision === 'approve' ? 'Approved' : 'Rejected';
  const where = `${a.id} (step ${a.step_id} of run ${a.run_id})`;
  if (a.status === 'pending') return `${what} ${where}: ${a.approvals_count} of ${a.required_approvals} approvals; still pending.`;
  if (a.status === 'approved') return `${what} ${where}: approved; the run goes on.`;
  return `${what} ${where}: ${a.status}; the run fails.`;
}

/**
 * `POST /approvals/{approval_id}/decision`. No question asked: the command is the decision, and a
 * script must be able to make it. Refusals keep their problem code on stderr and exit by the table in
 * docs/cli.md: 5 for `separation_of_duties` and `approver_role_required`, 9 for `approval_not_pending`
 * and `already_decided` (nothing left for this caller to decide). `--json`: the approval after it.
 */
export async function runApprovalsDecide(decision: Decision, options: ApprovalsDecideOptions, ctx: Context): Promise<void> {
  const body: DecisionBody = { decision, ...(options.comment === undefined ? {} : { comment: options.comment }) };
  const answer = await ctx.apiClient().request({ method: 'POST', path: `/approvals/${enc(options.approval)}/decision`, body });
  const approval = answer.body as Approval;
  if (options.json) return printJson(ctx.io, approval);
  ctx.io.err(`${outcome(decision, approval)}\n`);
}
