import type { Command } from 'commander';
import type { Approval } from '../../../shared/api/approvals.js';
import type { Column, OffsetPage } from '../../runtime/table.js';

/** The approval routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { Approval };

export type ApprovalPage = OffsetPage<Approval>;

/** `1/2`: approvals recorded of those the gate needs. */
const tally = (a: Approval) => `${a.approvals_count}/${a.required_approvals}`;

/** A message on one table line: its first line, cut short. */
const brief = (text: string | null) => {
  const line = (text ?? '').split('\n')[0]!;
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
};

export const APPROVAL_COLUMNS: Column<Approval>[] = [
  { header: 'ID', value: (a) => a.id },
  { header: 'RUN', value: (a) => a.run_id },
  { header: 'FLOW', value: (a) => a.flow_name },
  { header: 'STEP', value: (a) => a.step_id },
  { header: 'STATUS', value: (a) => a.status },
  { header: 'APPROVALS', value: tally },
  { header: 'EXPIRES', value: (a) => a.expires_at },
  { header: 'MESSAGE', value: (a) => brief(a.message) },
];

/** One approval as `field: value` lines, each decision on its own `decision:` line. */
export const approvalFields = (a: Approval) =>
  [
    ['id', a.id],
    ['status', a.status],
    ['run', `${a.run_name} (${a.run_id})`],
    ['flow', `${a.flow_name} (${a.flow_id ?? 'purged'})`],
    ['step', a.step_id],
    ['message', a.message],
    ['details', Object.keys(a.details).length === 0 ? null : JSON.stringify(a.details)],
    ['approvals', `${tally(a)} needed`],
    ['approver_role', a.approver_role ?? 'any approver'],
    ['allow_starter', a.allow_starter],
    ['run_started_by', a.run_started_by],
    ['timeout_action', a.timeout_action],
    ['expires_at', a.expires_at ?? 'never'],
    ...(a.timeout_outcome === null ? [] : [['timeout_outcome', a.timeout_outcome] as const]),
    ['requested_at', a.requested_at],
    ['resolved_at', a.resolved_at],
    ...a.decisions.map(
      (d) =>
        [
          'decision',
          `${d.decision} by ${d.user_name ?? d.user_id} at ${d.decided_at}${d.comment === null ? '' : `: ${d.comment}`}`,
        ] as const,
    ),
  ] as const;

/** APPROVAL, the argument of the verbs that act on one approval. */
export const approvalArgument = (command: Command) => command.argument('<approval>', 'approval id');
