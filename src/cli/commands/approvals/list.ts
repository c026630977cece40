import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { printPage } from '../../runtime/table.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import { positiveNumber } from '../runs/inputs.js';
import { flowId } from '../runs/resolve.js';
import { APPROVAL_COLUMNS, type ApprovalPage } from './types.js';

export interface ApprovalsListOptions {
  /** The caller's inbox (`GET /approvals/pending`): what this caller may decide now. */
  readonly pending: boolean;
  /** One status (the daemon checks the value). */
  readonly status: string | undefined;
  readonly run: string | undefined;
  /** A flow id or name. */
  readonly flow: string | undefined;
  readonly limit: number | undefined;
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(
    command
      .description("The organization's approvals, newest first; --pending: only those you may decide now (your inbox).")
      .option('--pending', 'only the approvals you may approve or reject now (not your own runs unless allowed, not ones you decided)')
      .option('--status <status>', 'only this status: pending, approved, rejected, expired, cancelled')
      .option('--run <run>', "only this run's approvals (run id)")
      .option('--flow <flow>', "only this flow's (id, or its name)")
      .option('--limit <n>', 'at most this many (1-500, default 50)'),
  );
}

export const invoke: Invoke = ({ raw, ctx }) => runApprovalsList(parseApprovalsListOptions(raw), ctx);

export function parseApprovalsListOptions(raw: Record<string, unknown>): ApprovalsListOptions {
  const options = {
    pending: raw.pending === true,
    status: flag.string(raw, 'status'),
    run: flag.string(raw, 'run'),
    flow: flag.string(raw, 'flow'),
    limit: positiveNumber(raw, 'limit', '--limit'),
    json: flag.json(raw),
  };
  if (options.pending && (options.status ?? options.run ?? options.flow) !== undefined)
    throw usageError('--pending lists your inbox and takes no filter', 'drop --status, --run and --flow, or drop --pending');
  return options;
}

/** `GET /approvals` (filters) or `GET /approvals/pending`. `--json`: the daemon's page `{items, total, limit, offset}`. */
export async function runApprovalsList(options: ApprovalsListOptions, ctx: Context): Promise<void> {
  const client = ctx.apiClient();
  const query: Record<string, string> = {};
  if (options.status !== undefined) query.status = options.status;
  if (options.run !== undefined) query.run_id = options.run;
  if (options.flow !== undefined) query.flow_id = await flowId(client, options.flow);
  if (options.limit !== undefined) query.limit = String(options.limit);
  const path = options.pending ? '/approvals/pending' : '/approvals';
  const page = (await client.request({ method: 'GET', path, query })).body as ApprovalPage;
  if (options.json) return printJson(ctx.io, page);
  printPage(ctx.io, page, APPROVAL_COLUMNS, options.pending ? 'Nothing for you to decide.' : 'No approvals.');
}
